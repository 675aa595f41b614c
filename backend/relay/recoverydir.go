package relay

import (
	"context"
	"errors"

	"weald/backend/identity"
	"weald/backend/relay/store"
	"weald/backend/wire"
)

// The recovery tag directory (docs/protocol/lifecycle.md "Recovery tag
// directory"). A person holding only their recovery phrase must find, in
// each group, the recovery.wrap sealed to it, though its tag is blinded per
// epoch and only members of that epoch can compute it. The directory keeps,
// per recovery principal (the owner, by key id) and group, the wrap a
// device of the owner's user named last and the one it replaced, so a
// hand-off that stops between a new wrap and its use still leaves one.
//
// What the relay learns: that the owner's user has a wrap in that group at
// that seq. It already stores that wrap, authored by a device the roster
// it folds ties to the user, with its tag and epoch in the clear, so a slot
// adds no membership it did not see; nothing of the wrap's contents.

// errNotOwner refuses a key that may not use the owner's directory.
func errNotOwner(index int) error {
	return wire.Errorf(wire.CodeDirNotOwner, "Only a live device of the recovery phrase's own person may use its recovery directory.",
		wire.U("index", uint64(index)))
}

// foldedDevice returns ws's folded roster (locked: the caller unlocks
// f.mu) and the user of key when it is a live device there.
func (s *Service) foldedDevice(ctx context.Context, tx store.Tx, ws, key wire.ID) (*rosterFold, identity.UserID, bool, error) {
	w, err := lockWorkspace(ctx, tx, ws)
	if err != nil {
		return nil, identity.UserID{}, false, err
	}
	if w.RosterIndex == 0 {
		return nil, identity.UserID{}, false, nil
	}
	f, err := s.foldRoster(ctx, tx, ws, w)
	if err != nil {
		return nil, identity.UserID{}, false, err
	}
	d, ok := f.state.Device(identity.DeviceID(key))
	if !ok || !f.state.DeviceLive(d.ID) {
		return f, identity.UserID{}, false, nil
	}
	return f, d.User, true, nil
}

// RecoveryDirPut makes each item's wrap the current entry of its owner's
// slot of its group, all or none. The connection must be a live device (its
// own key, or its invite grant while no set lists it) of the user the
// owner recovery principal belongs to, and that principal unrevoked; each
// seq must hold a recovery.wrap of the group authored by a device of that
// same user. The relay reads the wrap's tag and epoch from its ct, so a slot
// names only a wrap the relay holds.
func (s *Service) RecoveryDirPut(ctx context.Context, ws wire.ID, p wire.AuthOK, items []wire.DirPut) error {
	if p.Kind != wire.PrincipalDevice && p.Kind != wire.PrincipalGrant {
		return errNotOwner(0)
	}
	if len(items) == 0 || len(items) > wire.MaxDirPuts {
		return wire.Errorf(wire.CodeMalformed, "A recovery directory put names 1 to 256 slots.")
	}
	return s.st.Update(ctx, func(tx store.Tx) error {
		f, user, live, err := s.foldedDevice(ctx, tx, ws, p.Principal)
		if err != nil {
			return err
		}
		if f != nil {
			defer f.mu.Unlock()
		}
		if !live {
			return errNotOwner(0)
		}
		for i, it := range items {
			if r, ok := f.state.Recovery(identity.RecoveryID(it.Owner)); !ok || r.RevokedAt != nil || r.User != user {
				return errNotOwner(i)
			}
			if _, err := tx.Group(ctx, ws, it.Group); errors.Is(err, store.ErrNotFound) {
				return wire.Errorf(wire.CodeUnknownGroup, "That group is not in this workspace.", wire.U("index", uint64(i)))
			} else if err != nil {
				return err
			}
			var rows []store.EnvelopeRow
			if it.Seq > 0 {
				if rows, err = tx.Envelopes(ctx, ws, it.Group, it.Seq-1, 1, 1); err != nil {
					return err
				}
			}
			bad := wire.Errorf(wire.CodeBadObject, "A recovery directory slot names only a recovery wrap a device of the same person sent.",
				wire.U("index", uint64(i)))
			if len(rows) != 1 || rows[0].Seq != it.Seq || rows[0].Envelope.Kind != wire.KindRecoveryWrap {
				return bad
			}
			tag, ok1 := wire.WrapTag(rows[0].Envelope.CT)
			epoch, ok2 := wire.WrapEpoch(rows[0].Envelope.CT)
			author, ok3 := f.state.Device(identity.DeviceID(rows[0].Envelope.Author))
			if !ok1 || !ok2 || !ok3 || author.User != user {
				return bad
			}
			added, err := tx.RecoveryDirPut(ctx, ws, it.Owner, it.Group, wire.DirEntry{Seq: it.Seq, Epoch: epoch, Tag: tag})
			if err != nil {
				return err
			}
			if added {
				if n, err := tx.RecoveryDirCount(ctx, ws, it.Owner); err != nil {
					return err
				} else if n > wire.MaxDirSlots {
					return wire.Errorf(wire.CodeDirLimit, "This recovery phrase has a directory slot in as many groups as the relay keeps.",
						wire.U("limit", wire.MaxDirSlots), wire.U("index", uint64(i)))
				}
			}
		}
		return nil
	})
}

// RecoveryDir returns owner's slots to the owner's own connection (the
// recovery key) or to a live device of the owner's user; each entry says
// whether its wrap is still stored.
func (s *Service) RecoveryDir(ctx context.Context, ws wire.ID, p wire.AuthOK, owner wire.ID) (*wire.RecoveryDir, error) {
	out := &wire.RecoveryDir{Owner: owner}
	err := s.st.Update(ctx, func(tx store.Tx) error {
		switch p.Kind {
		case wire.PrincipalRecovery:
			if p.Principal != owner {
				return errNotOwner(0)
			}
		case wire.PrincipalDevice, wire.PrincipalGrant:
			f, user, live, err := s.foldedDevice(ctx, tx, ws, p.Principal)
			if err != nil {
				return err
			}
			if f == nil {
				return errNotOwner(0)
			}
			r, ok := f.state.Recovery(identity.RecoveryID(owner))
			f.mu.Unlock()
			if !live || !ok || r.User != user {
				return errNotOwner(0)
			}
		default:
			return errNotOwner(0)
		}
		var err error
		out.Slots, err = tx.RecoveryDir(ctx, ws, owner)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// RecoveryDirDrop executes a signed RecoveryDirDrop: the directory's only
// deletion, and like drop_before and WRAPS_DELETE only on a member's
// instruction (removal step 4 drops the removed person). The signer must be
// live in the roster the relay folds and either an admin device of the
// current access set or a device of the owner's own user; a removed member
// or another member is refused. The instruction is kept.
func (s *Service) RecoveryDirDrop(ctx context.Context, ws wire.ID, _ wire.AuthOK, d wire.RecoveryDirDrop) (*wire.RecoveryDirDropped, error) {
	if d.Workspace != ws {
		return nil, wire.Errorf(wire.CodeWrongWorkspace, "The recovery directory drop names another workspace.")
	}
	if len(d.Groups) > wire.MaxDirDropGroups {
		return nil, wire.Errorf(wire.CodeMalformed, "A recovery directory drop names at most 256 groups.")
	}
	if d.VerifySignature() != nil {
		return nil, wire.Errorf(wire.CodeAuthBadSignature, "The recovery directory drop's signature does not verify.")
	}
	out := &wire.RecoveryDirDropped{}
	err := s.st.Update(ctx, func(tx store.Tx) error {
		signer := wire.KeyID(d.DeviceKey)
		f, user, live, err := s.foldedDevice(ctx, tx, ws, signer)
		if err != nil {
			return err
		}
		own := false
		if f != nil {
			r, ok := f.state.Recovery(identity.RecoveryID(d.Owner))
			own = ok && r.User == user
			f.mu.Unlock()
		}
		refuse := wire.Errorf(wire.CodeDirNotAllowed, "Only an admin device, or a device of the recovery phrase's own person, may drop its recovery directory.")
		if !live {
			return refuse
		}
		w, err := tx.Workspace(ctx, ws)
		if err != nil {
			return err
		}
		set, err := s.currentSet(ctx, tx, ws, w.AccessVersion)
		if err != nil {
			return err
		}
		if dev, ok := set.set.Device(d.DeviceKey); !own && (!ok || !dev.Admin) {
			return refuse
		}
		n, err := tx.DropRecoveryDir(ctx, ws, &d)
		out.Slots = uint64(n)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
