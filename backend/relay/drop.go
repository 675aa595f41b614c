package relay

import (
	"bytes"
	"context"
	"errors"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// keptKinds are never deleted by a drop: the group's retention transitions
// and policies stay so that a later reader can verify the checkpoints that
// replace what went, and the MLS handshake (commits, proposals, Welcomes)
// so that a device added before the drop still finds its Welcome and every
// member can follow the epochs across it (explicit groups have no external
// join to fall back on). They are small beside the content that goes.
var keptKinds = []wire.Kind{wire.KindRetentionTransition, wire.KindRetentionPolicy,
	wire.KindMLSCommit, wire.KindMLSProposal, wire.KindMLSWelcome}

// DropBefore executes a signed drop_before (spec/lifecycle.md "Dropping").
// The barrier is the seq of the checkpoint envelope it names, never a number
// the client sends. In one transaction, and refusing with a drop/ code at the
// first failure, it checks: the instruction's signature under the group's
// current retention key (the head of an unfrozen transition chain); the
// checkpoint envelope's presence, kind and signature; the manifest hash and
// the complete snapshot list against the checkpoint; every named snapshot
// envelope present; and an active RetentionPolicy whose text window has
// passed for the checkpoint, or a due RetentionDestruction for exactly this
// checkpoint approved by the admin threshold. Only then it deletes the
// group's envelopes below the barrier that the checkpoint's author barrier
// covers, keeping the checkpoint, its snapshots (the group's only anchors
// from then on: the earlier anchors below the barrier go too) and the
// retention objects. A drop at or below the group's last barrier changes
// nothing. An envelope below the barrier that its author's
// barrier entry does not reach arrived after the checkpoint's writer read
// the log: no snapshot holds it, so it stays (docs/protocol/retention.md
// "What a drop deletes").
func (s *Service) DropBefore(ctx context.Context, ws wire.ID, _ wire.AuthOK, d wire.DropBefore) (*wire.Dropped, error) {
	if d.VerifySignature() != nil {
		return nil, wire.Errorf(wire.CodeDropBadSignature, "The drop_before signature does not verify.")
	}
	var out *wire.Dropped
	err := s.st.Update(ctx, func(tx store.Tx) error {
		w, err := lockWorkspace(ctx, tx, ws)
		if err != nil {
			return err
		}
		g, err := tx.Group(ctx, ws, d.Group)
		if errors.Is(err, store.ErrNotFound) {
			return wire.Errorf(wire.CodeUnknownGroup, "That group is not in this workspace.")
		}
		if err != nil {
			return err
		}
		if g.RetentionFrozen {
			return wire.Errorf(wire.CodeDropChainFrozen, "This group's retention chain has two successors for one key; nothing is dropped until a member resolves it.")
		}
		all, err := tx.RetentionKeys(ctx, ws, d.Group)
		if err != nil {
			return err
		}
		keys := live(all)
		if len(keys) == 0 {
			return wire.Errorf(wire.CodeDropNoChain, "This group has published no retention key.")
		}
		if !bytes.Equal(chainHead(keys), d.RetentionKey) {
			return wire.Errorf(wire.CodeDropStaleKey, "The drop_before is not signed by the group's current retention key.")
		}
		cpRow, err := tx.EnvelopeByAuthor(ctx, ws, d.Group, d.Checkpoint.Author, d.Checkpoint.Ctr)
		if errors.Is(err, store.ErrNotFound) || (err == nil && cpRow.Hash != d.Checkpoint.Hash) {
			return wire.Errorf(wire.CodeDropUnknownCheckpoint, "The relay holds no such checkpoint envelope in this group.")
		}
		if err != nil {
			return err
		}
		if cpRow.Envelope.Kind != wire.KindCheckpoint {
			return wire.Errorf(wire.CodeDropNotCheckpoint, "The named envelope is not a checkpoint.")
		}
		cp, err := wire.DecodeCheckpoint(cpRow.Envelope.CT)
		if err != nil || cp.Verify() != nil || findKey(keys, cp.RetentionKey) == nil {
			return wire.Errorf(wire.CodeDropBadCheckpoint, "The checkpoint does not verify under a retention key of this group.")
		}
		if d.ManifestHash != cp.ManifestHash {
			return wire.Errorf(wire.CodeDropManifestMismatch, "The drop_before's manifest hash is not the checkpoint's.")
		}
		if !sameRefs(d.Snapshots, cp.Snapshots) {
			return wire.Errorf(wire.CodeDropIncomplete, "The drop_before must name exactly the snapshots its checkpoint's manifest lists.")
		}
		anchors := []uint64{cpRow.Seq}
		for _, ref := range d.Snapshots {
			row, err := tx.EnvelopeByAuthor(ctx, ws, d.Group, ref.Author, ref.Ctr)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			if err != nil || row.Hash != ref.Hash || row.Envelope.Kind != wire.KindSnapshot {
				return wire.Errorf(wire.CodeDropSnapshotMissing, "A snapshot the checkpoint needs is not on the relay.", wire.B("hash", ref.Hash[:]))
			}
			anchors = append(anchors, row.Seq)
		}
		set, err := s.currentSet(ctx, tx, ws, w.AccessVersion)
		if err != nil {
			return err
		}
		if err := s.checkAuthorization(ctx, tx, ws, &set.set, &d, cpRow); err != nil {
			return err
		}
		if cpRow.Seq <= g.DroppedBelow {
			// A repeat, or a checkpoint a later drop already covers:
			// nothing more goes, and the newer anchors stay.
			out = &wire.Dropped{Group: d.Group, BarrierSeq: cpRow.Seq}
			return nil
		}
		// The earlier anchors hold nothing a reader beneath this drop
		// lacks but days its snapshots replace or a text window expired.
		if err := tx.DropAnchorsBelow(ctx, ws, d.Group, cpRow.Seq); err != nil {
			return err
		}
		if err := tx.AddAnchors(ctx, ws, d.Group, anchors); err != nil {
			return err
		}
		n, nbytes, err := tx.DropEnvelopesBelow(ctx, ws, d.Group, cpRow.Seq, cp.Barrier, keptKinds)
		if err != nil {
			return err
		}
		if err := tx.SetDroppedBelow(ctx, ws, d.Group, cpRow.Seq); err != nil {
			return err
		}
		out = &wire.Dropped{Group: d.Group, BarrierSeq: cpRow.Seq, Envelopes: uint64(n), Bytes: uint64(nbytes)}
		return tx.Emit(ctx, store.Change{Kind: store.ChangeDrop, Workspace: ws, Group: d.Group, Seq: cpRow.Seq})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkAuthorization checks the drop's authorization: the group's active
// policy (its latest version, still approved by the admin threshold of the
// current access set, with a finite text window that has passed since the
// checkpoint was accepted), or a RetentionDestruction for this checkpoint
// that is due, not expired and approved by the threshold.
func (s *Service) checkAuthorization(ctx context.Context, tx store.Tx, ws wire.ID, set *wire.AccessSet, d *wire.DropBefore, cp store.EnvelopeRow) error {
	now := s.unix()
	switch d.Authorization {
	case wire.AuthorizedByPolicy:
		p, err := tx.LatestPolicy(ctx, ws, d.Group)
		if errors.Is(err, store.ErrNotFound) {
			return wire.Errorf(wire.CodeDropNoPolicy, "This group has no retention policy.")
		}
		if err != nil {
			return err
		}
		if p.Ref != d.Policy {
			return wire.Errorf(wire.CodeDropPolicyInactive, "The named retention policy is not the group's current one.")
		}
		pol, err := wire.DecodeRetentionPolicy(p.Body)
		if err != nil {
			return err
		}
		if checkApprovals(set, wire.LabelRetentionPolicy, pol.TBS(), pol.Approvals) != nil {
			return wire.Errorf(wire.CodeDropPolicyInactive, "The retention policy is no longer approved by enough current admins.")
		}
		if p.TextWindowDays == 0 {
			return wire.Errorf(wire.CodeDropNotDue, "The group's retention policy keeps text forever.", wire.U("due_unix", 0))
		}
		due := cp.AcceptedAt + int64(p.TextWindowDays)*86400
		if now < due {
			return wire.Errorf(wire.CodeDropNotDue, "The material below this checkpoint is still inside the retention window.", wire.U("due_unix", uint64(due)))
		}
		return nil
	case wire.AuthorizedByDestruction:
		x := &d.Destruction
		if x.Group != d.Group || x.Checkpoint != d.Checkpoint {
			return wire.Errorf(wire.CodeDropBadDestruction, "The destruction authorization names another group or checkpoint.")
		}
		if now < int64(x.NotBefore) {
			return wire.Errorf(wire.CodeDropNotDue, "The destruction authorization is not due yet.", wire.U("due_unix", x.NotBefore))
		}
		if x.NotAfter != 0 && now > int64(x.NotAfter) {
			return wire.Errorf(wire.CodeDropBadDestruction, "The destruction authorization has expired.")
		}
		if err := checkApprovals(set, wire.LabelRetentionDestruction, x.TBS(), x.Approvals); err != nil {
			return wire.Errorf(wire.CodeDropBadDestruction, "The destruction authorization lacks enough admin approvals.", err.Fields...)
		}
		return nil
	}
	return wire.Errorf(wire.CodeMalformed, "Unknown drop authorization.")
}

// sameRefs reports whether a and b hold the same references, in any order.
func sameRefs(a, b []wire.EnvelopeRef) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[wire.EnvelopeRef]int{}
	for _, r := range a {
		m[r]++
	}
	for _, r := range b {
		if m[r] == 0 {
			return false
		}
		m[r]--
	}
	return true
}
