package health

import (
	"fmt"
	"strings"
	"time"
)

// check is one row of the spec's table.
type check struct {
	id       ID
	title    string
	severity Severity // of a failure
	run      func(f *Facts) Finding
}

// checks are the spec's table, in its order.
var checks = []check{
	{RecoveryWrap, "Recovery wraps", Critical, checkRecoveryWrap},
	{RecoveryDirectory, "Recovery tag directory", Warning, checkRecoveryDirectory},
	{HistoryPublish, "History for joiners", Warning, checkHistoryPublish},
	{HeadAttestations, "Head attestations", Critical, checkHeadAttestations},
	{Probation, "Probationary devices", Critical, checkProbation},
	{FrozenChain, "Retention chains", Warning, checkFrozenChain},
	{AccessSet, "Access set", Warning, checkAccessSet},
	{AgentLeaves, "Expired agents", Warning, checkAgentLeaves},
	{TransparencyLog, "Membership log", Critical, checkTransparencyLog},
	{AdminDevices, "Admin devices", Warning, checkAdminDevices},
	{Storage, "Storage", Warning, checkStorage},
}

// IDs returns every check's id in the spec's order.
func IDs() []ID {
	out := make([]ID, len(checks))
	for i, c := range checks {
		out[i] = c.id
	}
	return out
}

// AccessSetMaxAge is the age beyond which the access set is stale.
const AccessSetMaxAge = 7 * 24 * time.Hour

// NearBudgetPercent is where storage becomes actionable.
const NearBudgetPercent = 80

func ok(s string) Finding { return Finding{State: StateOK, Finding: s} }

func fail(s string, a Action, groups []string) Finding {
	return Finding{State: StateAction, Finding: s, Action: &a, Groups: groups}
}

func repaired(s string, groups []string) Finding {
	return Finding{State: StateRepaired, Finding: s, Groups: groups}
}

// names lists channel names for a sentence: "#a, #b and 3 more".
func names(gs []string) string {
	const shown = 3
	var b strings.Builder
	for i, g := range gs {
		if i == shown {
			fmt.Fprintf(&b, " and %d more", len(gs)-shown)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("#" + g)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

var syncAction = Action{ID: "sync", Label: "Sync now", Command: "weald sync"}

func checkRecoveryWrap(f *Facts) Finding {
	if !f.HasRecovery {
		return fail("You have no recovery phrase registered, so no channel can be recovered from one.",
			Action{ID: "sync", Label: "Sync to register your recovery key", Command: "weald sync"}, nil)
	}
	var stale, fixed []string
	for _, g := range f.Groups {
		switch {
		case g.WrapRepaired:
			fixed = append(fixed, g.Name)
		case !g.Wrapped || g.WrapEpoch < g.Epoch:
			stale = append(stale, g.Name)
		}
	}
	if len(stale) > 0 {
		return fail(fmt.Sprintf("%s could not be rejoined from your recovery phrase: %s.",
			plural(len(stale), "channel", "channels"), names(stale)), syncAction, stale)
	}
	if len(fixed) > 0 {
		return repaired(fmt.Sprintf("The recovery wrap of %s was out of date and has been sent again.", names(fixed)), fixed)
	}
	return ok(fmt.Sprintf("Every one of your %s can be rejoined from your recovery phrase.", plural(len(f.Groups), "channel", "channels")))
}

func checkRecoveryDirectory(f *Facts) Finding {
	switch {
	case !f.HasRecovery:
		return Finding{State: StateNotChecked, Finding: "You have no recovery phrase registered, so it has no directory to check."}
	case !f.DirKnown:
		return Finding{State: StateNotChecked, Finding: "The relay's recovery directory could not be read, so it was not checked."}
	}
	var missing, fixed []string
	for _, g := range f.Groups {
		switch {
		case !g.DirValid:
			missing = append(missing, g.Name)
		case g.DirRepaired:
			fixed = append(fixed, g.Name)
		}
	}
	if len(missing) > 0 {
		return fail(fmt.Sprintf("A recovery from your phrase would not find %s through the relay's directory: %s.",
			plural(len(missing), "channel", "channels"), names(missing)), syncAction, missing)
	}
	if len(fixed) > 0 {
		return repaired(fmt.Sprintf("The recovery directory had no usable entry for %s; a fresh recovery wrap was sent and entered.", names(fixed)), fixed)
	}
	return ok(fmt.Sprintf("The recovery directory leads your phrase to a recovery wrap in every one of your %s.", plural(len(f.Groups), "channel", "channels")))
}

func checkHistoryPublish(f *Facts) Finding {
	var stale, fixed []string
	n := 0
	for _, g := range f.Groups {
		if !g.OpenParent {
			continue
		}
		n++
		switch {
		case g.HistoryRepaired:
			fixed = append(fixed, g.Name)
		case !g.HasHistory || g.HistoryEpoch < g.RootEpoch:
			stale = append(stale, g.Name)
		}
	}
	if len(stale) > 0 {
		return fail(fmt.Sprintf("Someone joining %s now would find its history empty.", names(stale)), syncAction, stale)
	}
	if len(fixed) > 0 {
		return repaired(fmt.Sprintf("The history of %s was republished for joiners.", names(fixed)), fixed)
	}
	return ok(fmt.Sprintf("All %s open to the workspace show their history to joiners.", plural(n, "channel", "channels")))
}

var alertsAction = Action{ID: "report_relay", Label: "See the alerts and tell the relay's operator", Command: "weald alerts"}

func checkHeadAttestations(f *Facts) Finding {
	switch {
	case f.SplitViews > 0:
		return fail(fmt.Sprintf("The relay showed this device a different view than another member's device saw (%s): see the alerts.",
			plural(f.SplitViews, "disagreement", "disagreements")), alertsAction, nil)
	case len(f.Silent) > 0:
		return fail(fmt.Sprintf("No head attestation has arrived from %s for more than a day although they keep writing: the relay may be withholding them.",
			strings.Join(f.Silent, ", ")), alertsAction, nil)
	case f.Attested == 0:
		return Finding{State: StateNotChecked,
			Finding: "No other device's head attestation has been read yet, so there is nothing to compare this device's view with."}
	}
	return ok(fmt.Sprintf("The head attestations of %s agree with what the relay shows this device.", plural(f.Attested, "other device", "other devices")))
}

func checkProbation(f *Facts) Finding {
	if n := len(f.Probation); n > 0 {
		return fail(fmt.Sprintf("%s recovered from a phrase %s waiting for an existing admin to confirm it: %s.",
			plural(n, "device", "devices"), map[bool]string{true: "is", false: "are"}[n == 1], strings.Join(f.Probation, ", ")),
			Action{ID: "review_probation", Label: "Approve it if you know who recovered it, else revoke it", Command: "weald device approve DEVICE (or weald device revoke DEVICE)"}, nil)
	}
	return ok("No recovered device is waiting for confirmation.")
}

func checkFrozenChain(f *Facts) Finding {
	var frozen []string
	for _, g := range f.Groups {
		if g.ChainFrozen {
			frozen = append(frozen, g.Name)
		}
	}
	if len(frozen) > 0 {
		return fail(fmt.Sprintf("Two competing retention keys block compaction of %s until a member resolves them.", names(frozen)),
			Action{ID: "resolve_chain", Label: "An admin keeps the key their own epochs derive and discards the other; nothing is deleted meanwhile",
				Command: "weald retention resolve CHANNEL"}, frozen)
	}
	return ok("No retention chain is contested.")
}

func checkAccessSet(f *Facts) Finding {
	switch {
	case !f.AccessSetKnown:
		return fail("The relay's access set could not be read.", syncAction, nil)
	case f.AccessRepaired:
		return repaired("The access set was older than 7 days and this admin device has republished it.", nil)
	case f.Now.Sub(f.AccessSetAt) > AccessSetMaxAge:
		days := int(f.Now.Sub(f.AccessSetAt) / (24 * time.Hour))
		return fail(fmt.Sprintf("No admin device has been online for %d days, so the relay's list of who may connect is stale.", days),
			Action{ID: "admin_connect", Label: "Open Weald on an admin device"}, nil)
	}
	return ok("The relay's list of who may connect is less than 7 days old.")
}

func checkAgentLeaves(f *Facts) Finding {
	var in []string
	seen := map[string]bool{}
	var agents []string
	for _, g := range f.Groups {
		if len(g.ExpiredAgents) == 0 {
			continue
		}
		in = append(in, g.Name)
		for _, a := range g.ExpiredAgents {
			if !seen[a] {
				seen[a] = true
				agents = append(agents, a)
			}
		}
	}
	if len(in) > 0 {
		return fail(fmt.Sprintf("%s whose delegation has ended %s still in %s.", plural(len(agents), "agent", "agents"),
			map[bool]string{true: "is", false: "are"}[len(agents) == 1], names(in)), syncAction, in)
	}
	return ok("No expired agent is left in any channel.")
}

func checkTransparencyLog(f *Facts) Finding {
	if f.RosterRefused >= 0 {
		text := fmt.Sprintf("The relay serves a membership change at position %d that does not follow from the log before it: it may be showing different members different histories.", f.RosterRefused)
		switch f.RosterBreak {
		case "roster/log_gap":
			text = fmt.Sprintf("The relay's membership log has a gap after position %d: it lost or withholds changes, so members may not see who was added or removed.", f.RosterRefused)
		case "roster/log_fork":
			text = fmt.Sprintf("The relay's membership log branches from this device's after position %d: two different histories exist, so it may be showing different members different histories.", f.RosterRefused)
		}
		return fail(text, Action{ID: "report_relay", Label: "Tell your admins; do not trust membership changes after it"}, nil)
	}
	return ok("The membership log is continuous to its head.")
}

func checkAdminDevices(f *Facts) Finding {
	n := plural(f.AdminDevices, "admin device", "admin devices")
	switch {
	case f.AdminDevices >= 2:
		return ok(fmt.Sprintf("This workspace has %s.", n))
	case f.RecoveryQuorum:
		return ok(fmt.Sprintf("This workspace has %s and a registered recovery quorum.", n))
	}
	if !f.Admin {
		// Not this device's to act on: its admins are shown it.
		return Finding{State: StateNotChecked, Finding: fmt.Sprintf("Left to the admins: this workspace has %s and no recovery quorum, and only an admin can add either.", n)}
	}
	quorum := "no recovery quorum"
	if f.QuorumRegistered {
		quorum = "a recovery quorum that could not vouch for every admin (a member left, or too few others hold a device)"
	}
	fd := fail(fmt.Sprintf("This workspace has %s and %s: after a phrase-only recovery nobody could remove anyone again. Pair a second device or register a recovery quorum.", n, quorum),
		Action{ID: "add_admin_device", Label: "Pair a second device, promote a second admin or register a recovery quorum", Command: "weald recovery quorum set --users A,B,C --threshold 2"}, nil)
	if f.Dismissed[AdminDevices] {
		fd.State = StateDismissed
	}
	return fd
}

func checkStorage(f *Facts) Finding {
	switch {
	case !f.StorageKnown:
		return Finding{State: StateNotChecked, Finding: "The relay's storage figures could not be read."}
	case f.LimitBytes == 0:
		return ok(fmt.Sprintf("This workspace uses %s on a relay with no storage budget.", Bytes(f.LogBytes)))
	}
	pct := f.LogBytes * 100 / f.LimitBytes
	s := fmt.Sprintf("This workspace uses %s of its %s budget (%d %%).", Bytes(f.LogBytes), Bytes(f.LimitBytes), pct)
	if pct >= 100 {
		fd := fail(s+" New messages are refused until space is freed.", compactNow, nil)
		fd.Severity = Critical
		return fd
	}
	if pct >= NearBudgetPercent {
		return fail(s, compactNow, nil)
	}
	return ok(s)
}

var compactNow = Action{ID: "compact_now", Label: "Compact now", Command: "weald compact --all --now"}

// Bytes formats a byte count for a sentence (1 KB = 1000 bytes).
func Bytes(n uint64) string {
	units := []string{"bytes", "KB", "MB", "GB", "TB"}
	v, i := float64(n), 0
	for v >= 1000 && i < len(units)-1 {
		v /= 1000
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}
