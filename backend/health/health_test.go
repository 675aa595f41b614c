package health

import (
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)

// good is a healthy workspace: every check passes (or is not checked).
func good() *Facts {
	return &Facts{
		Now: now, HasRecovery: true, DirKnown: true,
		Groups: []Group{
			{Name: "general", Epoch: 4, Wrapped: true, WrapEpoch: 4, DirValid: true, OpenParent: true, HasHistory: true, HistoryEpoch: 2, RootEpoch: 2},
			{Name: "secret", Epoch: 1, Wrapped: true, WrapEpoch: 1, DirValid: true},
		},
		AccessSetKnown: true, AccessSetAt: now.Add(-2 * 24 * time.Hour),
		RosterRefused: -1, AdminDevices: 2, Admin: true, Attested: 3,
		StorageKnown: true, LogBytes: 10 << 20, LimitBytes: 100 << 20,
	}
}

// Each check fires on the bad state the spec's table names and stays
// quiet on a good workspace; the finding says what and offers the action.
func TestEachCheckFiresOnItsBadState(t *testing.T) {
	cases := []struct {
		id     ID
		break_ func(f *Facts)
		want   State
		says   string // in the sentence
		action string
	}{
		{RecoveryWrap, func(f *Facts) { f.Groups[0].Epoch = 5 }, StateAction, "#general", "sync"},
		{RecoveryWrap, func(f *Facts) { f.Groups[1].Wrapped = false }, StateAction, "#secret", "sync"},
		{RecoveryWrap, func(f *Facts) { f.HasRecovery = false }, StateAction, "no recovery phrase", "sync"},
		{RecoveryWrap, func(f *Facts) { f.Groups[0].WrapRepaired = true }, StateRepaired, "sent again", ""},
		{RecoveryDirectory, func(f *Facts) { f.Groups[1].DirValid = false }, StateAction, "#secret", "sync"},
		{RecoveryDirectory, func(f *Facts) { f.Groups[0].DirRepaired = true }, StateRepaired, "fresh recovery wrap", ""},
		{HistoryPublish, func(f *Facts) { f.Groups[0].RootEpoch = 3 }, StateAction, "#general", "sync"},
		{HistoryPublish, func(f *Facts) { f.Groups[0].HasHistory = false }, StateAction, "history empty", "sync"},
		{HistoryPublish, func(f *Facts) { f.Groups[0].HistoryRepaired = true }, StateRepaired, "republished", ""},
		{Probation, func(f *Facts) { f.Probation = []string{"dana's dev_ab12"} }, StateAction, "dana's dev_ab12", "review_probation"},
		{FrozenChain, func(f *Facts) { f.Groups[0].ChainFrozen = true }, StateAction, "#general", "resolve_chain"},
		{AccessSet, func(f *Facts) { f.AccessSetAt = now.Add(-8 * 24 * time.Hour) }, StateAction, "8 days", "admin_connect"},
		{AccessSet, func(f *Facts) { f.AccessSetKnown = false }, StateAction, "could not be read", "sync"},
		{AccessSet, func(f *Facts) { f.AccessRepaired = true }, StateRepaired, "republished", ""},
		{AgentLeaves, func(f *Facts) { f.Groups[1].ExpiredAgents = []string{"builder"} }, StateAction, "#secret", "sync"},
		{TransparencyLog, func(f *Facts) { f.RosterRefused = 17 }, StateAction, "position 17", "report_relay"},
		{AdminDevices, func(f *Facts) { f.AdminDevices = 1 }, StateAction, "register a recovery quorum", "add_admin_device"},
		{AdminDevices, func(f *Facts) { f.AdminDevices = 1; f.QuorumRegistered = true }, StateAction, "could not vouch for every admin", "add_admin_device"},
		{AdminDevices, func(f *Facts) { f.AdminDevices = 1; f.RecoveryQuorum = true }, StateOK, "1 admin device and a registered recovery quorum", ""},
		{AdminDevices, func(f *Facts) { f.AdminDevices = 1; f.Dismissed = map[ID]bool{AdminDevices: true} }, StateDismissed, "1 admin device", "add_admin_device"},
		// A member cannot promote or pair an admin's device: left to the admins.
		{AdminDevices, func(f *Facts) { f.AdminDevices = 1; f.Admin = false }, StateNotChecked, "Left to the admins", ""},
		{HeadAttestations, func(f *Facts) { f.SplitViews = 2 }, StateAction, "2 disagreements", "report_relay"},
		{HeadAttestations, func(f *Facts) { f.Silent = []string{"lee's dev_ab12"} }, StateAction, "lee's dev_ab12", "report_relay"},
		{Storage, func(f *Facts) { f.LogBytes = 80 << 20 }, StateAction, "(80 %)", "compact_now"},
		{Storage, func(f *Facts) { f.LogBytes = 100 << 20 }, StateAction, "refused", "compact_now"},
	}
	for _, c := range cases {
		f := good()
		c.break_(f)
		r := Run(f)
		got, _ := r.Finding(c.id)
		if got.State != c.want || !strings.Contains(got.Finding, c.says) {
			t.Errorf("%s: got %s %q, want %s saying %q", c.id, got.State, got.Finding, c.want, c.says)
		}
		if (got.Action == nil) != (c.action == "") || (got.Action != nil && got.Action.ID != c.action) {
			t.Errorf("%s: action %+v, want %q", c.id, got.Action, c.action)
		}
		if got.State == StateAction && got.Severity == Info {
			t.Errorf("%s: a failure has severity info", c.id)
		}
		if r.NeedsAction() != (c.want == StateAction) {
			t.Errorf("%s: NeedsAction %v with state %s", c.id, r.NeedsAction(), c.want)
		}
		// Only the broken check moved.
		for _, o := range r.Findings {
			if o.Check != c.id && o.State != StateOK && o.State != StateNotChecked {
				t.Errorf("breaking %s moved %s to %s", c.id, o.Check, o.State)
			}
		}
	}
	r := Run(good())
	if r.NeedsAction() {
		t.Fatalf("a good workspace needs action: %+v", r.Findings)
	}
	if len(r.Findings) != 11 {
		t.Fatalf("%d findings, want the spec's 11 rows", len(r.Findings))
	}
	for _, f := range r.Findings {
		if f.State == StateOK && f.Severity != Info || f.Finding == "" || f.Title == "" {
			t.Errorf("good %s: %+v", f.Check, f)
		}
	}
}

// Storage at 100 % is critical; below 80 % it is advisory only (ok with the
// figures); a relay without a budget is ok.
func TestStorageThresholds(t *testing.T) {
	for _, c := range []struct {
		used, limit uint64
		state       State
		sev         Severity
	}{{79, 100, StateOK, Info}, {80, 100, StateAction, Warning}, {99, 100, StateAction, Warning},
		{100, 100, StateAction, Critical}, {150, 100, StateAction, Critical}, {5, 0, StateOK, Info}} {
		f := good()
		f.LogBytes, f.LimitBytes = c.used<<20, c.limit<<20
		got, _ := Run(f).Finding(Storage)
		if got.State != c.state || got.Severity != c.sev {
			t.Errorf("%d of %d MiB: %s %s, want %s %s", c.used, c.limit, got.State, got.Severity, c.state, c.sev)
		}
	}
}

// Checks this client cannot judge say so and are never reported passed.
func TestUncheckableChecksSayNotChecked(t *testing.T) {
	unread := good()
	unread.DirKnown = false
	if f, _ := Run(unread).Finding(RecoveryDirectory); f.State != StateNotChecked || !strings.Contains(f.Finding, "could not be read") {
		t.Errorf("recovery directory not read: %+v", f)
	}
	noPhrase := good()
	noPhrase.HasRecovery = false
	if f, _ := Run(noPhrase).Finding(RecoveryDirectory); f.State != StateNotChecked {
		t.Errorf("recovery directory without a phrase: %+v", f)
	}
	noneYet := good()
	noneYet.Attested = 0
	if f, _ := Run(noneYet).Finding(HeadAttestations); f.State != StateNotChecked {
		t.Errorf("head attestations with none read: %+v", f)
	}
	f := good()
	f.StorageKnown = false
	if got, _ := Run(f).Finding(Storage); got.State != StateNotChecked {
		t.Errorf("unknown storage: %s", got.State)
	}
}

func TestDueWeekly(t *testing.T) {
	if !Due(time.Time{}, now) || Due(now.Add(-Interval+time.Second), now) || !Due(now.Add(-Interval), now) {
		t.Fatal("Due is not weekly")
	}
}

func TestReportRoundTrip(t *testing.T) {
	f := good()
	f.AdminDevices = 1
	r := Run(f)
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeReport(b)
	if err != nil || !back.At.Equal(r.At) || len(back.Findings) != 11 || !back.NeedsAction() {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	if _, err := DecodeReport([]byte("{")); err == nil {
		t.Fatal("a torn report decoded")
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[uint64]string{0: "0 bytes", 999: "999 bytes", 1500: "1.5 KB", 80 << 20: "83.9 MB", 3e12: "3.0 TB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
