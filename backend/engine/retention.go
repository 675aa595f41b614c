package engine

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"strconv"
	"time"

	"weald/backend/documents"
	"weald/backend/errcode"
	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/retention"
	"weald/backend/wire"
)

// retentionRec is a group's retention state (backend/retention;
// docs/protocol/retention.md), kept with the group.
type retentionRec struct {
	// Seeds holds the retention key seed of each recent MLS epoch (the
	// last 64), so this member can extend the chain from an older head.
	Seeds map[string][]byte `json:"seeds,omitempty"`
	Chain retention.Chain   `json:"chain"`
	// Changes counts the content envelopes since the last checkpoint in
	// the log; Since is when that checkpoint was met (or the first change).
	Changes int       `json:"changes,omitempty"`
	Since   time.Time `json:"since,omitempty"`
	// Trusted are checkpoints this client wrote or verified, oldest first.
	Trusted []trustedCP `json:"trusted,omitempty"`
	// Policy is the group's latest accepted retention.policy envelope.
	Policy        *wire.EnvelopeRef `json:"policy,omitempty"`
	PolicyVersion uint64            `json:"policy_version,omitempty"`
	DroppedBelow  uint64            `json:"dropped_below,omitempty"`
	// VerifiedFrom: this client read history from a checkpoint it could
	// not replay beneath (a drop came first): author chains are verified
	// from that checkpoint's time on ("history verified from").
	VerifiedFrom time.Time `json:"verified_from,omitempty"`
	// StandInTried is when this member last tried to stand in for an
	// absent steward (compact.go); it tries again a cadence later.
	StandInTried time.Time `json:"stand_in_tried,omitempty"`
	// DropTried is when the steward last tried a policy drop without a
	// checkpoint written first (a quiet channel; at most hourly).
	DropTried time.Time `json:"drop_tried,omitempty"`
}

// trustedCP is a checkpoint this client wrote or verified.
type trustedCP struct {
	Seq          uint64             `json:"seq"`
	Ref          wire.EnvelopeRef   `json:"ref"`
	ManifestHash wire.ID            `json:"manifest_hash"`
	Snapshots    []wire.EnvelopeRef `json:"snapshots"`
	Manifest     []byte             `json:"manifest"` // the opened manifest
	At           time.Time          `json:"at"`       // when it was written (manifest created_at)
	// Partial: its manifest leaves out expired days (OmitsExpired), so
	// only a policy drop may name it, never a destruction.
	Partial bool `json:"partial,omitempty"`
	// BundlesAbove: this client published the group's standing bundles
	// after it, so a drop below it leaves joiners what they need.
	BundlesAbove bool `json:"bundles_above,omitempty"`
}

const keptCheckpoints = 4

func (r *retentionRec) trust(t trustedCP) {
	r.Trusted = append(r.Trusted, t)
	if n := len(r.Trusted) - keptCheckpoints; n > 0 {
		r.Trusted = append([]trustedCP(nil), r.Trusted[n:]...)
	}
}

func (r *retentionRec) trustedRef(ref wire.EnvelopeRef) bool {
	for _, t := range r.Trusted {
		if t.Ref == ref {
			return true
		}
	}
	return false
}

func (r *retentionRec) trustedAt(seq uint64) *trustedCP {
	for i := range r.Trusted {
		if r.Trusted[i].Seq == seq {
			return &r.Trusted[i]
		}
	}
	return nil
}

// noteChange counts a content envelope towards the next checkpoint.
func (r *retentionRec) noteChange(now time.Time) {
	if r.Changes == 0 && r.Since.IsZero() {
		r.Since = now
	}
	r.Changes++
}

// seedKey is this member's retention key of epoch, from the seed it kept
// (an error when it holds none).
func (r *retentionRec) seedKey(epoch uint64) (ed25519.PrivateKey, error) {
	return retention.Key(r.Seeds[strconv.FormatUint(epoch, 10)])
}

// noteRetentionSeed records the retention key seed of g's current epoch,
// keeping those of the last 64 epochs and of every tip of the chain: the
// next transition is signed by the head's key however many epochs ago it
// was made (retentionTip), and a frozen chain is resolved to the tip this
// device derives (retention_resolve.go).
func (e *Engine) noteRetentionSeed(g *group) error {
	if g.mls == nil || !g.mls.Active() {
		return nil
	}
	seed, err := retention.KeySeed(g.mls, wire.ID(g.rec.ID))
	if err != nil {
		return err
	}
	r := &g.rec.Retention
	if r.Seeds == nil {
		r.Seeds = map[string][]byte{}
	}
	ep := g.mls.Epoch()
	r.Seeds[strconv.FormatUint(ep, 10)] = seed
	tips := map[uint64]bool{}
	for _, k := range r.Chain.Keys {
		if r.Chain.IsTip(k.Key) {
			tips[k.Epoch] = true
		}
	}
	for k := range r.Seeds {
		if n, _ := strconv.ParseUint(k, 10, 64); n+64 < ep && !tips[n] {
			delete(r.Seeds, k)
		}
	}
	return nil
}

// processRetention handles the relay-visible retention kinds met in g's
// log, in order.
func (e *Engine) processRetention(ctx context.Context, g *group, se *wire.SeqEnvelope, authorPub []byte) {
	r := &g.rec.Retention
	env := &se.Envelope
	switch env.Kind {
	case wire.KindRetentionTransition:
		if t, err := wire.DecodeRetentionTransition(env.CT); err == nil && t.Group == env.Group {
			_ = r.Chain.Add(&t, authorPub) // one the relay would refuse is ignored
		}
	case wire.KindRetentionResolution:
		if x, err := wire.DecodeRetentionResolution(env.CT); err == nil && x.Group == env.Group &&
			e.adminsApproved(wire.LabelRetentionResolution, x.TBS(), x.Approvals) {
			_ = r.Chain.Resolve(x.Key)
		}
	case wire.KindRetentionPolicy:
		if p, err := wire.DecodeRetentionPolicy(env.CT); err == nil && p.Group == env.Group && p.Version > r.PolicyVersion &&
			e.adminsApproved(wire.LabelRetentionPolicy, p.TBS(), p.Approvals) {
			ref := wire.RefOf(env)
			r.Policy, r.PolicyVersion = &ref, p.Version
		}
	case wire.KindCheckpoint:
		e.receiveCheckpoint(ctx, g, se)
	}
}

// adminsApproved reports whether approvals over content come from admin
// devices of enough distinct admin users (1 with one live admin, else 2).
func (e *Engine) adminsApproved(label string, content []byte, approvals []wire.Approval) bool {
	users := map[identity.UserID]bool{}
	for _, a := range approvals {
		id := identity.DeviceID(wire.KeyID(a.DeviceKey))
		d, ok := e.roster.Device(id)
		if !ok || !e.roster.IsAdmin(id) || wire.Verify(a.DeviceKey, label, content, a.Signature) != nil {
			continue
		}
		users[d.User] = true
	}
	need := 2
	if e.roster.LiveAdmins() <= 1 {
		need = 1
	}
	return len(users) >= need
}

// receiveCheckpoint verifies a checkpoint met in g's log (seq se.Seq) as
// spec/lifecycle.md "Checkpoints" says a receiver does, and reads from its
// snapshots what this client lacks (a joiner after compaction, a member
// that was away across a drop). A checkpoint that fails is refused with a
// retention/* alert and never trusted.
func (e *Engine) receiveCheckpoint(ctx context.Context, g *group, se *wire.SeqEnvelope) {
	r := &g.rec.Retention
	env := &se.Envelope
	ref := wire.RefOf(env)
	if r.trustedRef(ref) {
		// This client wrote it (and counted from then) or met it before:
		// the changes sent since still count towards the next one.
		return
	}
	if err := e.verifyCheckpoint(ctx, g, se); err != nil {
		if !errors.Is(err, groups.ErrNoKey) {
			e.raise(ctx, Alert{Code: "retention/checkpoint_refused", Group: hexID(g.rec.ID).hex(),
				Actor: identity.DeviceID(env.Author).String(),
				Message: fmt.Sprintf("A checkpoint by %s (seq %d) was refused and is not trusted: %v",
					identity.DeviceID(env.Author).ShortString(), se.Seq, err)})
		}
		return
	}
	r.Changes, r.Since = 0, e.now()
}

func (e *Engine) verifyCheckpoint(ctx context.Context, g *group, se *wire.SeqEnvelope) error {
	r := &g.rec.Retention
	env := &se.Envelope
	cp, err := wire.DecodeCheckpoint(env.CT)
	if err != nil || cp.Group != env.Group {
		return fmt.Errorf("%w: malformed", retention.ErrBadCheckpoint)
	}
	mb, err := e.openSealed(g, env, cp.Manifest)
	if err != nil {
		return err
	}
	m, err := retention.DecodeManifest(mb)
	if err != nil {
		return err
	}
	log, dropped, err := e.fetchLogTo(ctx, wire.ID(g.rec.ID), se.Seq-1)
	if err != nil {
		return err
	}
	want := map[wire.EnvelopeRef]bool{}
	for _, x := range cp.Snapshots {
		want[x] = true
	}
	snaps := map[wire.EnvelopeRef][]byte{}
	sealed := map[wire.EnvelopeRef]bool{}
	for i := range log {
		x := &log[i].Envelope
		if x.Kind != wire.KindSnapshot {
			continue
		}
		if sr := wire.RefOf(x); want[sr] {
			b, err := e.openSealed(g, x, x.CT)
			switch {
			case err == nil:
				snaps[sr] = b
			case errors.Is(err, groups.ErrNoKey):
				sealed[sr] = true // an epoch before this device joined
			}
		}
	}
	check := retention.Check{Chain: &r.Chain, Manifest: &m, Snapshots: snaps, Sealed: sealed, Now: e.now()}
	if gi, ok := e.roster.Group(identity.GroupID(g.rec.ID)); ok {
		check.Window = retention.WindowAt(retention.Effective(gi), m.At(check.Now))
	}
	beneath := dropped >= se.Seq
	if !beneath {
		barrier := map[wire.ID]uint64{}
		for _, b := range cp.Barrier {
			barrier[b.Author] = b.Ctr
		}
		sets, _, full, err := e.barrierSets(ctx, g, log, barrier, dropped)
		if err != nil {
			return err
		}
		if full {
			check.Sets = sets
			check.Frontier = func(k retention.DocKey, set []documents.Head) ([]documents.Head, error) {
				sh, err := e.shardFor(ctx, shardOf(g, k))
				if err != nil {
					return nil, err
				}
				return sh.s.Frontier(set)
			}
		}
	}
	snapshots, err := retention.Verify(&cp, check)
	if err != nil {
		return err
	}
	read, err := e.readSnapshots(ctx, g, &m, snapshots)
	if err != nil {
		return err
	}
	if read && beneath && r.VerifiedFrom.IsZero() {
		r.VerifiedFrom = time.UnixMilli(int64(m.CreatedAt)).UTC()
	}
	if beneath {
		// This client read across the drop: the author chains continue
		// from the barrier (chains.go), and below the newest barrier what
		// the drop kept continues them already.
		if se.Seq == dropped {
			e.checkAcrossDrop(ctx, g, log, cp.Barrier)
		}
		g.anchorChains(cp.Barrier)
	}
	if dropped > r.DroppedBelow {
		r.DroppedBelow = dropped
	}
	r.trust(trustedCP{Seq: se.Seq, Ref: wire.RefOf(env), ManifestHash: cp.ManifestHash, Snapshots: cp.Snapshots,
		Manifest: mb, At: time.UnixMilli(int64(m.CreatedAt)).UTC(), Partial: m.OmitsExpired})
	return nil
}

func shardOf(g *group, k retention.DocKey) shardKey {
	return shardKey{group: identity.GroupID(g.rec.ID), day: documents.Day(k.Day), epoch: k.Epoch}
}

// readSnapshots merges into the local shards the snapshots whose heads this
// client lacks; it reports whether it read any.
func (e *Engine) readSnapshots(ctx context.Context, g *group, m *retention.Manifest, snaps []documents.Opened) (bool, error) {
	read := false
	for i, s := range snaps {
		if m.Documents[i].Key.Kind != retention.KindChat {
			continue // the index: the engine keeps the shards themselves
		}
		sh, err := e.shardFor(ctx, shardOf(g, m.Documents[i].Key))
		if err != nil {
			return read, err
		}
		lacks := false
		for _, h := range s.Heads {
			if !sh.s.Has(h) {
				lacks = true
			}
		}
		if !lacks {
			continue
		}
		if err := sh.s.Merge(s); err != nil {
			return read, err
		}
		sh.rebase = true
		// Into the message index (history.go), which reads each once.
		sh.touch(sh.s.MessageIDs()...)
		read = true
	}
	if read {
		e.emit(Event{Kind: EventMessages, Channel: hexID(g.rec.ID).hex()})
	}
	return read, nil
}

// openSealed opens a ct sealed as content (a snapshot, or a checkpoint's
// manifest sealed for the checkpoint envelope's position).
func (e *Engine) openSealed(g *group, env *wire.Envelope, sealed []byte) ([]byte, error) {
	c, err := groups.DecodeContentCT(sealed)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", retention.ErrBadCheckpoint, err)
	}
	key := e.keyFor(g, c)
	if key == nil {
		return nil, groups.ErrNoKey
	}
	pt, err := groups.OpenContent(c, key, env.Group, env.Author, env.Ctr)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", retention.ErrBadCheckpoint, err)
	}
	return pt, nil
}

// keyFor returns the content key a ContentCT names, if this client holds it.
func (e *Engine) keyFor(g *group, c groups.ContentCT) []byte {
	switch c.Scheme {
	case groups.SchemeHistory:
		for _, hk := range g.history {
			if hk.ID == c.KeyID {
				return hk.Key
			}
		}
	case groups.SchemeEpoch:
		return g.rec.EpochKeys[strconv.FormatUint(c.Epoch, 10)]
	}
	return nil
}

// barrierSets returns, per document, the changes carried by the content
// envelopes of log at or below barrier (per author, the last ctr covered)
// that this client holds, plus beneath a drop the changes the trusted
// checkpoint at the drop's barrier stands for, and how many content
// envelopes that is. full is false when this client cannot replay them
// (content it holds no key for, or a drop beneath a checkpoint it never
// trusted).
func (e *Engine) barrierSets(ctx context.Context, g *group, log []wire.SeqEnvelope, barrier map[wire.ID]uint64, dropped uint64) (map[retention.DocKey][]documents.Head, int, bool, error) {
	sets := map[retention.DocKey][]documents.Head{}
	n := 0
	for i := range log {
		env := &log[i].Envelope
		if env.Kind != wire.KindContent {
			continue
		}
		if c, ok := barrier[env.Author]; !ok || env.Ctr > c {
			continue
		}
		vc, ok, err := e.verifiedContent(g, env)
		if err != nil {
			return nil, 0, false, nil // no key: this client cannot replay
		}
		if !ok {
			continue
		}
		for _, d := range vc.docs {
			sets[d.key] = append(sets[d.key], d.heads...)
		}
		n++
	}
	if dropped > 0 {
		base := g.rec.Retention.trustedAt(dropped)
		if base == nil {
			return nil, 0, false, nil
		}
		m, err := retention.DecodeManifest(base.Manifest)
		if err != nil {
			return nil, 0, false, err
		}
		for _, d := range m.Documents {
			if d.Key.Kind != retention.KindChat {
				continue
			}
			sh, err := e.shardFor(ctx, shardOf(g, d.Key))
			if err != nil {
				return nil, 0, false, err
			}
			anc, err := sh.s.Ancestors(d.Heads)
			if err != nil {
				return nil, 0, false, nil
			}
			sets[d.Key] = append(sets[d.Key], anc...)
		}
	}
	// Only changes this client holds: a change it refused (and those
	// depending on it) is in no snapshot it writes or accepts.
	for k, set := range sets {
		sh, err := e.shardFor(ctx, shardOf(g, k))
		if err != nil {
			return nil, 0, false, err
		}
		seen := map[documents.Head]bool{}
		kept := set[:0]
		for _, h := range set {
			if !seen[h] && sh.s.Has(h) {
				seen[h] = true
				kept = append(kept, h)
			}
		}
		if len(kept) == 0 {
			delete(sets, k)
		} else {
			sets[k] = kept
		}
	}
	return sets, n, true, nil
}

// fetchLogTo returns g's log up to seq upto, and the seq the log was
// dropped below (0: never compacted).
func (e *Engine) fetchLogTo(ctx context.Context, group wire.ID, upto uint64) ([]wire.SeqEnvelope, uint64, error) {
	var out []wire.SeqEnvelope
	var dropped uint64
	after := uint64(0)
	for page := 0; page < maxPages; page++ {
		p, err := e.fetchPage(ctx, group, after)
		if err != nil {
			return nil, 0, err
		}
		dropped = max(dropped, p.dropped)
		for _, se := range p.envs {
			if se.Seq > upto {
				return out, dropped, nil
			}
			out = append(out, se)
		}
		if !p.more || p.through <= after {
			return out, dropped, nil
		}
		after = p.through
	}
	return nil, 0, fmt.Errorf("engine: log of %s is longer than this client reads in one go", group.Short())
}

// ErrNotFullHistory: this client cannot write a checkpoint of a group whose
// history it does not hold in full.
var ErrNotFullHistory = errcode.New("retention/not_full_history", "this device does not hold the channel's full history, so it cannot write its checkpoint")

// verifiedContent is what a content envelope carries for a checkpoint: the
// chat change hashes per shard, read once it verified under pub.
type verifiedContent struct {
	pub  []byte
	docs []verifiedDoc
}

type verifiedDoc struct {
	key   retention.DocKey
	heads []documents.Head
}

// maxVerified bounds a group's cache of verified content envelopes.
const maxVerified = 1 << 18

// verifiedContent verifies env under its author's roster key, opens it and
// reads its chat change hashes, or returns what an earlier call read from
// the same envelope (same reference, so the same bytes) under the same key.
// ok is false for an envelope that does not verify, decode or open; err is
// groups.ErrNoKey when this client holds no key for it.
func (e *Engine) verifiedContent(g *group, env *wire.Envelope) (verifiedContent, bool, error) {
	pub, ok := e.devicePub(env.Author)
	if !ok {
		return verifiedContent{}, false, nil
	}
	ref := wire.RefOf(env)
	if vc, ok := g.verified[ref]; ok && bytes.Equal(vc.pub, pub) {
		return vc, true, nil
	}
	if wire.VerifyEnvelope(env, pub) != nil {
		return verifiedContent{}, false, nil
	}
	c, err := groups.DecodeContentCT(env.CT)
	if err != nil {
		return verifiedContent{}, false, nil
	}
	key := e.keyFor(g, c)
	if key == nil {
		return verifiedContent{}, false, groups.ErrNoKey
	}
	pt, err := groups.OpenContent(c, key, env.Group, env.Author, env.Ctr)
	if err != nil {
		return verifiedContent{}, false, nil
	}
	hs, err := documents.ChangeHashes(pt)
	if err != nil {
		return verifiedContent{}, false, nil
	}
	vc := verifiedContent{pub: pub}
	for ref, list := range hs {
		if ref.Kind == documents.KindChat {
			vc.docs = append(vc.docs, verifiedDoc{key: retention.DocKey{Kind: retention.KindChat, Day: uint32(ref.Day), Epoch: c.Epoch}, heads: list})
		}
	}
	if g.verified == nil || len(g.verified) >= maxVerified {
		g.verified = map[wire.EnvelopeRef]verifiedContent{}
	}
	g.verified[ref] = vc
	return vc, true, nil
}
