package relay

import (
	"bytes"
	"context"
	"errors"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// acceptVisible validates and records the relay-visible kinds: a retention
// key transition (design/gaps.md "Groups and keys"), a checkpoint
// (spec/lifecycle.md "Checkpoints") and a retention policy (design/gaps.md
// "Retention policy").
func (s *Service) acceptVisible(ctx context.Context, tx store.Tx, ws wire.ID, c *cachedSet, e *wire.Envelope, authorKey []byte, seq uint64, hash wire.ID, i int) error {
	idx := wire.U("index", uint64(i))
	switch e.Kind {
	case wire.KindRetentionTransition:
		t, err := wire.DecodeRetentionTransition(e.CT)
		if err != nil || t.Group != e.Group {
			return wire.Errorf(wire.CodeRetentionBadTransition, "The retention key transition is malformed or names another group.", idx)
		}
		if t.VerifySignature() != nil {
			return wire.Errorf(wire.CodeRetentionBadTransition, "The retention key transition is not signed by the key it succeeds.", idx)
		}
		return acceptTransition(ctx, tx, ws, &t, authorKey, seq, idx)
	case wire.KindCheckpoint:
		cp, err := wire.DecodeCheckpoint(e.CT)
		if err != nil || cp.Group != e.Group {
			return wire.Errorf(wire.CodeBadObject, "The checkpoint is malformed or names another group.", idx)
		}
		if cp.Verify() != nil {
			return wire.Errorf(wire.CodeBadObject, "The checkpoint's manifest hash or signature does not verify.", idx)
		}
		keys, err := tx.RetentionKeys(ctx, ws, e.Group)
		if err != nil {
			return err
		}
		if !isTip(live(keys), cp.RetentionKey) {
			return wire.Errorf(wire.CodeBadObject, "The checkpoint is not signed by the group's current retention key.", idx)
		}
		return tx.PutCheckpoint(ctx, ws, e.Group, store.CheckpointRow{Seq: seq,
			Ref: wire.EnvelopeRef{Author: e.Author, Ctr: e.Ctr, Hash: hash}, ManifestHash: cp.ManifestHash, RetentionKey: cp.RetentionKey})
	case wire.KindRetentionResolution:
		r, err := wire.DecodeRetentionResolution(e.CT)
		if err != nil || r.Group != e.Group {
			return wire.Errorf(wire.CodeRetentionBadResolution, "The retention resolution is malformed or names another group.", idx)
		}
		return acceptResolution(ctx, tx, ws, c, &r, idx)
	case wire.KindRetentionPolicy:
		p, err := wire.DecodeRetentionPolicy(e.CT)
		if err != nil || p.Group != e.Group {
			return wire.Errorf(wire.CodeRetentionBadPolicy, "The retention policy is malformed or names another group.", idx)
		}
		latest, err := tx.LatestPolicy(ctx, ws, e.Group)
		switch {
		case err == nil:
			if p.Version <= latest.Version {
				return wire.Errorf(wire.CodeRetentionBadPolicy, "A retention policy must have a higher version than the group's current one.",
					idx, wire.U("version", latest.Version))
			}
		case !errors.Is(err, store.ErrNotFound):
			return err
		}
		if err := checkApprovals(&c.set, wire.LabelRetentionPolicy, p.TBS(), p.Approvals); err != nil {
			err.Fields = append(err.Fields, idx)
			return err
		}
		return tx.PutPolicy(ctx, ws, e.Group, store.Policy{Version: p.Version, Seq: seq,
			Ref: wire.EnvelopeRef{Author: e.Author, Ctr: e.Ctr, Hash: hash}, TextWindowDays: p.TextWindowDays,
			MediaWindowDays: p.MediaWindowDays, Body: e.CT})
	}
	return nil
}

// acceptTransition records a retention key. A root is signed by the
// publishing device's own key; a successor by the key it succeeds, with a
// higher epoch. A second root, or a second successor of one key, freezes the
// group's chain: it is recorded (the fork is evidence) and no drop is
// accepted for the group from then on.
func acceptTransition(ctx context.Context, tx store.Tx, ws wire.ID, t *wire.RetentionTransition, authorKey []byte, seq uint64, idx wire.Field) error {
	all, err := tx.RetentionKeys(ctx, ws, t.Group)
	if err != nil {
		return err
	}
	keys := live(all) // a discarded branch cannot be continued
	bad := func(sentence string) error { return wire.Errorf(wire.CodeRetentionBadTransition, sentence, idx) }
	if t.IsRoot() {
		if !bytes.Equal(t.Signer, authorKey) {
			return bad("A retention chain's first key must be signed by the device that publishes it.")
		}
	} else {
		prev := findKey(keys, t.PrevKey)
		if prev == nil {
			return bad("The retention key transition succeeds a key this group never published.")
		}
		if t.Epoch <= prev.Epoch {
			return bad("A successor retention key must belong to a later epoch.")
		}
	}
	if bytes.Equal(t.NewKey, t.PrevKey) {
		return bad("A retention key cannot succeed itself.")
	}
	if existing := findKey(all, t.NewKey); existing != nil {
		if bytes.Equal(existing.PrevKey, t.PrevKey) {
			return nil // the same transition published again
		}
		return bad("This retention key was already published with another predecessor.")
	}
	fork := false
	for _, k := range keys {
		if bytes.Equal(k.PrevKey, t.PrevKey) {
			fork = true
		}
	}
	if err := tx.PutRetentionKey(ctx, ws, t.Group, store.RetentionKey{Key: t.NewKey, PrevKey: t.PrevKey, Epoch: t.Epoch, Seq: seq}); err != nil {
		return err
	}
	if fork {
		return tx.SetRetentionFrozen(ctx, ws, t.Group)
	}
	return nil
}

// acceptResolution ends a frozen chain: the named key must be a contested tip,
// approved by the admin threshold; every key off its line of ancestors is
// discarded and the group may drop again.
func acceptResolution(ctx context.Context, tx store.Tx, ws wire.ID, c *cachedSet, r *wire.RetentionResolution, idx wire.Field) error {
	g, err := tx.Group(ctx, ws, r.Group)
	if err != nil {
		return err
	}
	if !g.RetentionFrozen {
		return wire.Errorf(wire.CodeRetentionBadResolution, "This group's retention chain is not frozen.", idx)
	}
	all, err := tx.RetentionKeys(ctx, ws, r.Group)
	if err != nil {
		return err
	}
	keys := live(all)
	if !isTip(keys, r.Key) {
		return wire.Errorf(wire.CodeRetentionBadResolution, "A resolution must name one of the chain's current keys.", idx)
	}
	if err := checkApprovals(&c.set, wire.LabelRetentionResolution, r.TBS(), r.Approvals); err != nil {
		err.Fields = append(err.Fields, idx)
		return err
	}
	keep := map[string]bool{}
	for k := findKey(keys, r.Key); k != nil && !keep[string(k.Key)]; k = findKey(keys, k.PrevKey) {
		keep[string(k.Key)] = true
		if len(k.PrevKey) == 0 {
			break
		}
	}
	var dead [][]byte
	for _, k := range keys {
		if !keep[string(k.Key)] {
			dead = append(dead, k.Key)
		}
	}
	return tx.ResolveRetention(ctx, ws, r.Group, dead)
}

// live returns the keys not discarded by a resolution.
func live(keys []store.RetentionKey) []store.RetentionKey {
	out := keys[:0:0]
	for _, k := range keys {
		if !k.Dead {
			out = append(out, k)
		}
	}
	return out
}

func findKey(keys []store.RetentionKey, key []byte) *store.RetentionKey {
	for i := range keys {
		if bytes.Equal(keys[i].Key, key) {
			return &keys[i]
		}
	}
	return nil
}

// isTip reports whether key is a key of the chain without a successor: the
// current key (or, in a frozen chain, one of the contested ones). Only a
// member of the current epoch holds it, so a removed member's old key can
// no longer write checkpoints.
func isTip(keys []store.RetentionKey, key []byte) bool {
	if findKey(keys, key) == nil {
		return false
	}
	for _, k := range keys {
		if bytes.Equal(k.PrevKey, key) {
			return false
		}
	}
	return true
}

// chainHead returns the group's current retention key: the one key with no
// successor. It is nil for an empty chain.
func chainHead(keys []store.RetentionKey) []byte {
	succ := map[string]bool{}
	for _, k := range keys {
		succ[string(k.PrevKey)] = true
	}
	var head []byte
	for _, k := range keys {
		if !succ[string(k.Key)] {
			head = k.Key
		}
	}
	return head
}

// requiredApprovals is the admin threshold: 1 in a one-admin workspace,
// otherwise 2 (design/gaps.md "Retention policy"). Admins are distinct users
// with an admin device in the current access set.
func requiredApprovals(set *wire.AccessSet) int {
	if len(set.AdminUsers()) <= 1 {
		return 1
	}
	return 2
}

// checkApprovals verifies that approvals by admin devices of the current set
// over content under label come from enough distinct admin users.
func checkApprovals(set *wire.AccessSet, label string, content []byte, approvals []wire.Approval) *wire.Error {
	users := map[wire.ID]bool{}
	for _, a := range approvals {
		d, ok := set.Device(a.DeviceKey)
		if !ok || !d.Admin {
			continue
		}
		if wire.Verify(a.DeviceKey, label, content, a.Signature) != nil {
			return wire.Errorf(wire.CodeAuthBadSignature, "An approval signature does not verify.")
		}
		users[d.User] = true
	}
	need := requiredApprovals(set)
	if len(users) < need {
		return wire.Errorf(wire.CodeRetentionThreshold, "Not enough admins approved this.",
			wire.U("required", uint64(need)), wire.U("have", uint64(len(users))))
	}
	return nil
}
