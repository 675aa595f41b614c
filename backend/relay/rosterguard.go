package relay

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"weald/backend/identity"
	"weald/backend/relay/store"
	"weald/backend/roster"
	"weald/backend/wire"
)

// DefaultMaxRosterBytes bounds the encoded roster operations one workspace
// stores when Config.MaxRosterBytes is zero.
const DefaultMaxRosterBytes = 64 << 20

// rosterFold is the relay's fold of one workspace's stored roster
// (docs/protocol/roster.md "Relay append"): the state every client reaches
// from the same operations, so the relay can append only what every client
// will accept.
type rosterFold struct {
	mu    sync.Mutex
	state *roster.State
	bytes uint64 // encoded bytes of the folded operations
	// bad is set when a stored operation is refused by the rules (a roster
	// stored before the relay checked appends): nothing can extend it.
	bad *roster.Error
	// stored is set while stored operations are folded: they are not judged
	// by the relay's clock again (it may have moved back since it accepted
	// them), only new appends are.
	stored bool
}

// recoverMaxAge is how far before the relay's clock a new recover-device
// may be dated: the clock skew clients are allowed the other way.
const recoverMaxAge = 5 * time.Minute

// guardRosterOp checks what can be checked of op without the roster: its
// size and encoding, and that its actor is the connection's principal.
func guardRosterOp(p wire.AuthOK, b []byte) (*roster.Operation, error) {
	if len(b) == 0 || len(b) > roster.MaxOperationSize {
		return nil, wire.Errorf(wire.CodeMalformed, "A roster operation is between 1 byte and 256 KiB.",
			wire.U("limit_bytes", roster.MaxOperationSize))
	}
	op, err := roster.Decode(b)
	if err != nil {
		return nil, wire.Errorf(wire.CodeMalformed, "The roster operation is not a well-formed signed operation.", wire.T("detail", err.Error()))
	}
	var want identity.PrincipalKind
	switch p.Kind {
	case wire.PrincipalDevice, wire.PrincipalGrant:
		want = identity.KindDevice
	case wire.PrincipalAgent:
		want = identity.KindAgent
	case wire.PrincipalRecovery:
		want = identity.KindRecovery
	}
	if want == 0 || op.Actor.Kind != want || op.Actor.ID != p.Principal {
		return nil, wire.Errorf(wire.CodeAuthNotActor, "A roster operation must be signed by the key this connection authenticated with.")
	}
	return op, nil
}

// checkRosterOp checks op against the folded roster f (the caller holds the
// workspace lock and f.mu) and, if every rule holds, applies it to f.
func (s *Service) checkRosterOp(ctx context.Context, tx store.Tx, ws wire.ID, p wire.AuthOK, f *rosterFold, op *roster.Operation) error {
	if f.bad != nil {
		return wire.Errorf(wire.CodeRosterInvalid, "The roster stored here is invalid at this operation, so nothing can extend it.",
			wire.U("index", uint64(f.bad.Index)), wire.T("reason", f.bad.Code()), wire.T("detail", f.bad.Error()))
	}
	if n := uint64(len(op.Bytes())); f.bytes+n > s.maxRosterBytes {
		return wire.Errorf(wire.CodeRosterBudgetExhausted, "The workspace's roster has reached the relay's byte bound.",
			wire.U("limit_bytes", s.maxRosterBytes))
	}
	if p.Kind == wire.PrincipalGrant {
		if err := grantMayWrite(ctx, tx, ws, p, f.state, op); err != nil {
			return err
		}
	}
	switch b := op.Body.(type) {
	case *roster.Genesis:
		if wire.ID(b.Workspace) != ws {
			return wire.Errorf(wire.CodeRosterInvalid, "The genesis operation names another workspace.",
				wire.U("index", 0), wire.T("reason", (&roster.Error{Err: roster.ErrGenesis}).Code()))
		}
	case *roster.RecoverDevice:
		// A recover-device starts the recovered device's probation, whose
		// end its own recovery principal may sign when no other admin
		// could (roster.ProbationWait). Its date is the signer's word, so
		// a phrase thief facing a roster quiet for longer than the wait
		// could date it just after the last operation and approve itself
		// at once; the relay takes a new one only dated now
		// (docs/protocol/lifecycle.md "Recovery onto a new device").
		if now := s.now(); op.CreatedAt.Before(now.Add(-recoverMaxAge)) {
			return wire.Errorf(wire.CodeRosterInvalid, "A recovery must be dated now; this one is dated too far in the past.",
				wire.U("index", uint64(f.state.Len())), wire.T("reason", (&roster.Error{Err: roster.ErrStale}).Code()),
				wire.T("detail", fmt.Sprintf("dated %s, the relay's clock reads %s",
					op.CreatedAt.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))))
		}
	}
	if err := f.state.Apply(op); err != nil {
		var re *roster.Error
		if !errors.As(err, &re) {
			return err
		}
		return wire.Errorf(wire.CodeRosterInvalid, "Every client would refuse this roster operation, so the relay does not store it.",
			wire.U("index", uint64(re.Index)), wire.T("reason", re.Code()), wire.T("detail", re.Error()))
	}
	f.bytes += uint64(len(op.Bytes()))
	return nil
}

// grantMayWrite checks a grant connection's operation: the redemption of
// the invite whose grant the connection authenticated with, or, once that
// redemption is in the roster, an operation of the device it admitted
// (whose own rights the roster's rules then check), as a joiner registers
// its recovery principal before an admin lists its key in the access set.
func grantMayWrite(ctx context.Context, tx store.Tx, ws wire.ID, p wire.AuthOK, st *roster.State, op *roster.Operation) error {
	refuse := wire.Errorf(wire.CodeAuthRosterKind, "An invite link may append only the redemption of its own invite, and then what the device it admitted may write.",
		wire.T("type", op.Type().String()))
	_, grant, err := tx.GrantKey(ctx, ws, p.Principal)
	if errors.Is(err, store.ErrNotFound) {
		return refuse
	}
	if err != nil {
		return err
	}
	var invite roster.InviteID
	if b, ok := op.Body.(*roster.RedeemInvite); ok {
		invite = b.Invite
	} else {
		d, ok := st.Device(identity.DeviceID(p.Principal))
		if !ok || d.Invite == nil {
			return refuse
		}
		invite = *d.Invite
	}
	if inv, ok := st.Invite(invite); !ok || wire.ID(inv.Invite.Grant) != grant {
		return refuse
	}
	return nil
}

// foldRoster returns ws's folded roster caught up with the store (whose
// head is w's), locked; the caller unlocks f.mu. It runs inside a
// transaction holding the workspace lock.
func (s *Service) foldRoster(ctx context.Context, tx store.Tx, ws wire.ID, w store.Workspace) (*rosterFold, error) {
	s.mu.Lock()
	f := s.rosters.get(ws)
	s.mu.Unlock()
	f.mu.Lock()
	if f.state != nil && f.bad == nil && uint64(f.state.Len()) > w.RosterIndex {
		f.state = nil // ahead of the store: an append that did not commit
	}
	if f.state == nil {
		gk, err := identity.PublicFromBytes[identity.Genesis](w.GenesisKey)
		if err != nil {
			f.mu.Unlock()
			return nil, fmt.Errorf("relay: workspace genesis key: %w", err)
		}
		clock := func() time.Time {
			if f.stored {
				return time.Unix(1<<40, 0)
			}
			return s.now()
		}
		f.state = roster.New(roster.Options{Genesis: &gk, Clock: identity.ClockFunc(clock)})
		f.bytes, f.bad = 0, nil
	}
	f.stored = true
	defer func() { f.stored = false }()
	for f.bad == nil && uint64(f.state.Len()) < w.RosterIndex {
		ops, err := tx.RosterOps(ctx, ws, uint64(f.state.Len()), MaxFetchLimit, MaxFetchBytes)
		if err == nil && len(ops) == 0 {
			err = fmt.Errorf("relay: the store holds %d roster operations and returned none after %d", w.RosterIndex, f.state.Len())
		}
		if err != nil {
			f.state = nil
			f.mu.Unlock()
			return nil, err
		}
		for _, b := range ops {
			if err := f.state.ApplyBytes(b); err != nil {
				var re *roster.Error
				if !errors.As(err, &re) {
					re = &roster.Error{Index: f.state.Len(), Err: roster.ErrBadOperation, Detail: err.Error()}
				}
				f.bad = re
				break
			}
			f.bytes += uint64(len(b))
		}
	}
	if f.bad == nil && wire.ID(f.state.Head()) != w.RosterHead {
		f.state = nil
		f.mu.Unlock()
		return nil, fmt.Errorf("relay: the folded roster's head differs from the stored head at %d", w.RosterIndex)
	}
	return f, nil
}

// rosterAdmin refuses an access-set signer that holds no admin authority in
// ws's roster (not an admin, revoked, or a recovered device still on
// probation), once the workspace has a roster; the caller holds the
// workspace lock. An invalid stored roster is judged by its valid prefix.
func (s *Service) rosterAdmin(ctx context.Context, tx store.Tx, ws wire.ID, w store.Workspace, signer []byte) error {
	if w.RosterIndex == 0 {
		return nil
	}
	f, err := s.foldRoster(ctx, tx, ws, w)
	if err != nil {
		return err
	}
	admin := f.state.IsAdmin(identity.DeviceID(wire.KeyID(signer)))
	f.mu.Unlock()
	if !admin {
		return wire.Errorf(wire.CodeAuthNotAdmin, "Only a device with admin authority in the roster, not on probation, may publish the access set.")
	}
	return nil
}

// dropFold forgets ws's folded roster (an append applied to it did not
// commit); the next append folds it again from the store.
func (s *Service) dropFold(ws wire.ID) {
	s.mu.Lock()
	s.rosters.drop(ws)
	s.mu.Unlock()
}

// grantUses is how many device keys grant may carry: the max_uses of the
// invite whose grant it is in ws's roster, or 1 when the roster holds none
// (or is invalid before it). It locks the workspace (the caller is in an
// update transaction).
func (s *Service) grantUses(ctx context.Context, tx store.Tx, ws, grant wire.ID) (int, error) {
	w, err := tx.LockWorkspace(ctx, ws)
	if err != nil {
		return 0, err
	}
	if w.RosterIndex == 0 {
		return 1, nil
	}
	f, err := s.foldRoster(ctx, tx, ws, w)
	if err != nil {
		return 0, err
	}
	defer f.mu.Unlock()
	if inv, ok := f.state.InviteByGrant(grant); ok && inv.Invite.MaxUses > 1 {
		return int(inv.Invite.MaxUses), nil
	}
	return 1, nil
}
