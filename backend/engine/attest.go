package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"weald/backend/attest"
	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/store"
	"weald/backend/wire"
)

// Head attestations (spec/lifecycle.md "Detection", docs/protocol/
// lifecycle.md "Head attestations"): every device signs the heads it has
// processed into the root group's log, at most every AttestEvery; every
// other member compares them with its own view after its next sync and
// raises relay/split_view when the relay served the two differently, and
// relay/attestation_silence when a device keeps writing but its
// attestations stop arriving.

// AttestEvery is how often a device attests its heads (when they moved).
var AttestEvery = time.Hour

// AttestSilence is how long a device may keep writing with no attestation
// of its arriving before its silence is reported.
var AttestSilence = 24 * time.Hour

// Alert codes of head attestation.
const (
	AlertSplitView errcode.Code = "relay/split_view"
	AlertSilence   errcode.Code = "relay/attestation_silence"
)

// recentHeads is how many (seq, hash) pairs a group record keeps.
const recentHeads = 64

type seqHash struct {
	Seq  uint64 `json:"seq"`
	Hash hexID  `json:"hash"`
}

// noteHead records the hash of the envelope processed at seq.
func (r *groupRec) noteHead(seq uint64, h wire.ID) {
	r.Recent = append(r.Recent, seqHash{seq, hexID(h)})
	if n := len(r.Recent) - recentHeads; n > 0 {
		r.Recent = append([]seqHash(nil), r.Recent[n:]...)
	}
}

// attestState is kept as the store record "attestations".
type attestState struct {
	// Sent: when this device last attested, and what (without the time).
	Sent     time.Time `json:"sent"`
	SentView []byte    `json:"sent_view,omitempty"`
	// Pending: the latest attestation of each other device (hex id) not
	// compared yet, with this client's time of reading it.
	Pending map[string]pendingClaim `json:"pending,omitempty"`
	// Attested, Wrote: per other device, when this client last read an
	// attestation of it, and an envelope of any other kind by it.
	Attested map[string]time.Time `json:"attested,omitempty"`
	Wrote    map[string]time.Time `json:"wrote,omitempty"`
}

type pendingClaim struct {
	Body []byte    `json:"body"`
	Read time.Time `json:"read"`
}

func (e *Engine) attestations(ctx context.Context) *attestState {
	if e.att != nil {
		return e.att
	}
	e.att = &attestState{}
	if b, ok, err := e.db.record(ctx, store.RecordAttestations); err == nil && ok {
		_ = json.Unmarshal(b, e.att) // a damaged record starts afresh
	}
	if e.att.Pending == nil {
		e.att.Pending = map[string]pendingClaim{}
	}
	if e.att.Attested == nil {
		e.att.Attested = map[string]time.Time{}
	}
	if e.att.Wrote == nil {
		e.att.Wrote = map[string]time.Time{}
	}
	return e.att
}

func (e *Engine) saveAttestations(ctx context.Context) error {
	b, err := json.Marshal(e.att)
	if err != nil {
		return err
	}
	return e.db.update(ctx, func(t *txn) error { return t.putRecord(store.RecordAttestations, b) })
}

// noteEnvelope is called for each envelope of a roster device processed in
// a group: an attestation in the root group is kept for comparison; any
// other envelope counts as the device writing.
func (e *Engine) noteEnvelope(ctx context.Context, root bool, env *wire.Envelope) {
	if env.Author == wire.ID(e.devID) {
		return
	}
	st := e.attestations(ctx)
	dev := hexID(env.Author).hex()
	now := e.now()
	if env.Kind != wire.KindHeadAttestation {
		st.Wrote[dev] = now
		return
	}
	if !root {
		return
	}
	a, err := attest.Decode(env.CT)
	if err != nil || a.Workspace != [32]byte(e.wsID()) {
		return
	}
	st.Attested[dev] = now
	st.Pending[dev] = pendingClaim{Body: env.CT, Read: now}
}

// checkAttestations compares every attestation read before this sync
// started (so every group this client is in was fetched after it was
// read) with this client's view, raises relay/split_view for each
// disagreement and relay/attestation_silence for a device that wrote
// more than AttestSilence after its last attestation read here.
func (e *Engine) checkAttestations(ctx context.Context, syncStart time.Time) {
	st := e.attestations(ctx)
	mine := e.attestView()
	var heads map[uint64][32]byte
	mine.RosterHeadAt = func(n uint64) ([32]byte, bool) {
		if n == uint64(e.roster.Len()) {
			return [32]byte(e.roster.Head()), true
		}
		if heads == nil {
			heads = map[uint64][32]byte{}
			if ops, err := e.db.rosterOps(ctx); err == nil {
				for i, op := range ops {
					heads[uint64(i+1)] = [32]byte(roster.HeadOf(op))
				}
			}
		}
		h, ok := heads[n]
		return h, ok
	}
	for dev, c := range st.Pending {
		if !c.Read.Before(syncStart) {
			continue
		}
		delete(st.Pending, dev)
		a, err := attest.Decode(c.Body)
		if err != nil {
			continue
		}
		for _, d := range attest.Compare(a, mine) {
			e.raise(ctx, e.splitViewAlert(dev, a, d))
		}
	}
	for _, dev := range e.silentDevices(st) {
		last, ok := st.Attested[dev]
		if !ok {
			last = e.deviceAdmittedAt(dev)
		}
		e.raise(ctx, Alert{Code: string(AlertSilence), Actor: "dev_" + dev,
			Message: fmt.Sprintf("Device %s keeps writing, but no head attestation of it has arrived since %s: the relay may be showing this device a different view than the others.",
				dev[:8], last.UTC().Format(time.RFC3339)), Time: last.UTC()})
	}
}

// silentDevices lists the devices (hex ids, sorted) that wrote more than
// silenceAfter after the last attestation of theirs read here (or, with
// none read, after their user joined).
func (e *Engine) silentDevices(st *attestState) []string {
	var out []string
	for dev, w := range st.Wrote {
		last, ok := st.Attested[dev]
		if !ok {
			last = e.deviceAdmittedAt(dev)
		}
		if !last.IsZero() && w.Sub(last) > e.silenceAfter {
			out = append(out, dev)
		}
	}
	slices.Sort(out)
	return out
}

// deviceAdmittedAt is when device (hex) was admitted, or zero.
func (e *Engine) deviceAdmittedAt(dev string) time.Time {
	for _, u := range e.roster.Users() {
		for _, d := range u.Devices {
			if hexID(d).hex() == dev {
				return u.Joined
			}
		}
	}
	return time.Time{}
}

func (e *Engine) splitViewAlert(dev string, a *attest.Attestation, d attest.Disagreement) Alert {
	what := "the roster"
	group := ""
	if d.Group != nil {
		group = hexID(*d.Group).hex()
		what = "#" + e.groupName(identity.GroupID(*d.Group))
	}
	var msg string
	if d.Behind {
		msg = fmt.Sprintf("Device %s attested %s up to %d at %s, but the relay serves this device only up to %d: it is withholding the newest entries from this device or showing the two devices different views.",
			dev[:8], what, d.Theirs, a.Time.Format(time.RFC3339), d.Mine)
	} else {
		msg = fmt.Sprintf("Device %s saw a different entry at position %d of %s than this device: the relay is showing the two devices different views (a fork).",
			dev[:8], d.Theirs, what)
	}
	return Alert{Code: string(AlertSplitView), Group: group, Actor: "dev_" + dev, Message: msg}
}

// groupName names a group for an alert.
func (e *Engine) groupName(id identity.GroupID) string {
	if gi, ok := e.roster.Group(id); ok {
		return e.groupLabel(gi)
	}
	return id.ShortString()
}

// attestView is this device's view: the roster and every group it is a
// member of.
func (e *Engine) attestView() attest.Mine {
	m := attest.Mine{RosterLength: uint64(e.roster.Len()), Groups: map[[32]byte]attest.Processed{}}
	for id, g := range e.groups {
		if g.mls == nil || !g.mls.Active() {
			continue
		}
		p := attest.Processed{Seq: g.rec.LastSeq, Recent: map[uint64][32]byte{}}
		for _, r := range g.rec.Recent {
			p.Recent[r.Seq] = [32]byte(r.Hash)
		}
		m.Groups[[32]byte(id)] = p
	}
	return m
}

// attestIfDue sends this device's attestation into the root group when
// AttestEvery has passed since the last one and its heads moved.
func (e *Engine) attestIfDue(ctx context.Context) error {
	root := e.groups[e.roster.RootGroup()]
	if root == nil || root.mls == nil || !root.mls.Active() || !e.roster.DeviceLive(e.devID) || e.agentMode() {
		return nil
	}
	st := e.attestations(ctx)
	now := e.now()
	if !st.Sent.IsZero() && now.Sub(st.Sent) < e.attestEvery {
		return nil
	}
	a := attest.Attestation{Workspace: [32]byte(e.wsID()), RosterLength: uint64(e.roster.Len()), RosterHead: [32]byte(e.roster.Head())}
	for id, g := range e.groups {
		if g.mls == nil || !g.mls.Active() {
			continue
		}
		h := attest.GroupHead{Group: [32]byte(id), Seq: g.rec.LastSeq}
		if n := len(g.rec.Recent); n > 0 && g.rec.Recent[n-1].Seq == g.rec.LastSeq {
			h.Hash = [32]byte(g.rec.Recent[n-1].Hash)
		}
		a.Groups = append(a.Groups, h)
	}
	slices.SortFunc(a.Groups, func(x, y attest.GroupHead) int { return bytes.Compare(x.Group[:], y.Group[:]) })
	// Whether anything moved, the root's own head aside: the
	// attestations themselves move it.
	cmp := a
	cmp.Groups = slices.Clone(a.Groups)
	for i := range cmp.Groups {
		if cmp.Groups[i].Group == [32]byte(e.roster.RootGroup()) {
			cmp.Groups[i].Seq, cmp.Groups[i].Hash = 0, [32]byte{}
		}
	}
	view := cmp.Encode()
	if string(view) == string(st.SentView) {
		return nil
	}
	a.Time = now
	if _, err := e.sendCT(ctx, root, wire.KindHeadAttestation, a.Encode()); err != nil {
		return err
	}
	st.Sent, st.SentView = now, view
	return e.saveAttestations(ctx)
}
