package engine

import (
	"context"
	"errors"
	"slices"

	"weald/backend/health"
	"weald/backend/identity"
	"weald/backend/wire"
)

// The recovery tag directory (docs/protocol/lifecycle.md "Recovery tag
// directory"): after this device sends a recovery.wrap of its user's (its
// join, a group it created or entered by Welcome, a health repair, a phrase
// rotation), it names the wrap in the directory slot of the user's live
// recovery principal for that group, so a recovery holding only the phrase
// finds it. The wrap goes first and its name second: stopped in between,
// the slot still names the previous wrap, and once named the previous one
// stays as the fallback. What is owed is kept in the group's record and put
// at the end of the next sync when a put fails.

// ownWrapSent records a recovery.wrap this device sent in g for epoch at
// seq, owed to the directory slot of this user's live recovery principal.
func (e *Engine) ownWrapSent(g *group, epoch, seq uint64) {
	g.rec.Health.noteOwnWrap(epoch, seq)
	if rec, ok := e.recoveryKeys(); ok {
		g.rec.Health.DirWant, g.rec.Health.DirOwner = seq, hexID(rec.ID)
	}
}

// dirOwed lists the directory puts owed by the groups this device is an
// active member of (a wrap sent by a join that lost its race is not named:
// the device is no member by it).
func (e *Engine) dirOwed() ([]wire.DirPut, []*group) {
	var items []wire.DirPut
	var of []*group
	for id, g := range e.groups {
		h := &g.rec.Health
		if g.mls == nil || !g.mls.Active() || h.DirWant == 0 || h.DirWant == h.DirPut {
			continue
		}
		items = append(items, wire.DirPut{Owner: wire.ID(h.DirOwner), Group: wire.ID(id), Seq: h.DirWant})
		of = append(of, g)
	}
	return items, of
}

// flushRecoveryDir puts what is owed, 256 slots a request. An item the
// relay refuses (its wrap dropped or deleted meanwhile, the principal
// rotated away) is not owed any more: the health check finds the slot and
// sends a fresh wrap. A relay without the directory is left alone.
func (e *Engine) flushRecoveryDir(ctx context.Context) error {
	items, of := e.dirOwed()
	for len(items) > 0 {
		n := min(len(items), wire.MaxDirPuts)
		err := e.client.RecoveryDirPut(ctx, items[:n])
		var we *wire.Error
		switch {
		case errors.As(err, &we) && we.Code == wire.CodeUnknownFrame:
			return nil
		case errors.As(err, &we) && itemRefusal(we.Code):
			i, ok := we.UintField("index")
			if !ok || i >= uint64(n) {
				return err
			}
			of[i].rec.Health.DirPut = of[i].rec.Health.DirWant
			if err := e.persistGroup(ctx, of[i]); err != nil {
				return err
			}
			items, of = slices.Delete(items, int(i), int(i)+1), slices.Delete(of, int(i), int(i)+1)
			continue
		case err != nil:
			return err
		}
		if err := e.db.update(ctx, func(t *txn) error {
			for _, g := range of[:n] {
				g.rec.Health.DirPut = g.rec.Health.DirWant
				if err := e.saveGroup(t, g); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
		items, of = items[n:], of[n:]
	}
	return nil
}

// itemRefusal: a refused directory put names the item that will never be
// taken as it is.
func itemRefusal(c wire.Code) bool {
	return c == wire.CodeDirNotOwner || c == wire.CodeBadObject || c == wire.CodeUnknownGroup || c == wire.CodeDirLimit
}

// recoveryDir reads the slots of owner (this device's user's, or the
// phrase's it recovers with) by group; ok is false when the relay keeps no
// directory.
func (e *Engine) recoveryDir(ctx context.Context, owner identity.RecoveryID) (map[identity.GroupID]wire.DirSlot, bool, error) {
	d, err := e.client.RecoveryDir(ctx, wire.ID(owner))
	var we *wire.Error
	if errors.As(err, &we) && we.Code == wire.CodeUnknownFrame {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	out := make(map[identity.GroupID]wire.DirSlot, len(d.Slots))
	for _, s := range d.Slots {
		out[identity.GroupID(s.Group)] = s
	}
	return out, true, nil
}

// dropRecoveryDirs is removal step 4's directory part: a signed drop of
// the removed person's slots, in every group for a removal from the
// workspace, in the channel's for a partial one, for every recovery
// principal they ever had. Run again it drops nothing more; a relay
// without the directory is left alone.
func (e *Engine) dropRecoveryDirs(ctx context.Context, user identity.UserID, channel identity.GroupID) (uint64, error) {
	u, ok := e.roster.User(user)
	if !ok {
		return 0, nil
	}
	return e.dropDirs(ctx, u.Recovery, channel)
}

// dropOldRecoveryDirs is a phrase rotation's directory part: this device
// (its person's own, which the relay lets drop its person's directories)
// drops every slot of each recovery principal its user ever had but keep,
// so the old phrase no longer finds where its person's wraps are. Run
// again it drops nothing more.
func (e *Engine) dropOldRecoveryDirs(ctx context.Context, keep identity.RecoveryID) (uint64, error) {
	u, ok := e.roster.User(identity.UserID(e.meta.User))
	if !ok {
		return 0, nil
	}
	var old []identity.RecoveryID
	for _, rid := range u.Recovery {
		if rid != keep {
			old = append(old, rid)
		}
	}
	return e.dropDirs(ctx, old, identity.GroupID{})
}

// dropDirs sends a signed drop of each owner's slots (in channel's group
// only, when channel is set) and counts the slots dropped.
func (e *Engine) dropDirs(ctx context.Context, owners []identity.RecoveryID, channel identity.GroupID) (uint64, error) {
	var n uint64
	for _, rid := range owners {
		d := wire.RecoveryDirDrop{Workspace: wire.ID(e.meta.Workspace), Owner: wire.ID(rid)}
		if channel != (identity.GroupID{}) {
			d.Groups = []wire.ID{wire.ID(channel)}
		}
		d.Sign(e.edKey)
		res, err := e.client.RecoveryDirDrop(ctx, d)
		var we *wire.Error
		if errors.As(err, &we) && we.Code == wire.CodeUnknownFrame {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n += res.Slots
	}
	return n, nil
}

// recoveryDirFacts is the health check's "Recovery tag directory has a
// valid current-or-fallback slot for every group the user belongs to": it
// puts what is owed, reads the directory of this user's live recovery
// principal and marks each group of gs (aligned with f.Groups) whose slot
// leads to a wrap the relay still holds. The repair of a group whose slot
// does not: a fresh wrap at the current epoch, named at once, and the
// directory read again. A directory that cannot be read leaves the row not
// checked.
func (e *Engine) recoveryDirFacts(ctx context.Context, f *health.Facts, gs []*group) {
	rec, ok := e.recoveryKeys()
	if !ok {
		return
	}
	_ = e.flushRecoveryDir(ctx)
	dir, known, err := e.recoveryDir(ctx, rec.ID)
	if err != nil || !known {
		return
	}
	f.DirKnown = true
	var bad []int
	for i, g := range gs {
		if s, ok := dir[identity.GroupID(g.rec.ID)]; ok && s.Valid() {
			f.Groups[i].DirValid = true
		} else {
			bad = append(bad, i)
		}
	}
	if len(bad) > 0 {
		for _, i := range bad {
			_ = e.resendWrap(ctx, gs[i]) // a group it fails stays invalid
		}
		if err := e.flushRecoveryDir(ctx); err != nil {
			return
		}
		if dir, _, err = e.recoveryDir(ctx, rec.ID); err != nil {
			return
		}
		for _, i := range bad {
			if s, ok := dir[identity.GroupID(gs[i].rec.ID)]; ok && s.Valid() {
				f.Groups[i].DirValid, f.Groups[i].DirRepaired = true, true
			}
		}
	}
}
