package relay

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// AccessChange is what accepting an access set changed: the keys that left
// (their connections must close within 2 s and are refused afterwards) and
// the grants voided (carried by the previous set, not by this one).
type AccessChange struct {
	Workspace    wire.ID
	Version      uint64
	RemovedKeys  []wire.ID
	VoidedGrants []wire.ID
}

// PublishAccessSet accepts set as the workspace's next version and returns
// it; see [Service.Publish].
func (s *Service) PublishAccessSet(ctx context.Context, ws wire.ID, _ wire.AuthOK, set wire.AccessSet) (uint64, error) {
	ch, err := s.Publish(ctx, ws, set)
	return ch.Version, err
}

// Publish accepts set as version current+1 of ws (compare-and-swap on the
// version; design/gaps.md "Relay protocol", spec/lifecycle.md "Removing a
// person" step 5). Version 1 must be signed by the workspace's genesis key,
// which is then consumed; later versions by an admin device of the current
// set that, once the workspace has a roster, holds admin authority in it (a
// recovered device on probation does not: spec/lifecycle.md calls its
// publishing a takeover). Keys that left are recorded as departed (auth/revoked from now on);
// grants the previous set carried and this one does not are void for good.
func (s *Service) Publish(ctx context.Context, ws wire.ID, set wire.AccessSet) (AccessChange, error) {
	ch, err := s.publish(ctx, ws, set)
	if err != nil {
		s.noteRefusal(ctx, ws, &set, err)
	}
	return ch, err
}

func (s *Service) publish(ctx context.Context, ws wire.ID, set wire.AccessSet) (AccessChange, error) {
	if set.Workspace != ws {
		return AccessChange{}, wire.Errorf(wire.CodeWrongWorkspace, "The access set names another workspace.")
	}
	if err := validateSetShape(&set); err != nil {
		return AccessChange{}, err
	}
	if err := s.mayPublish(ctx, ws, &set); err != nil {
		return AccessChange{}, err
	}
	if err := set.VerifySignature(); err != nil {
		return AccessChange{}, wire.Errorf(wire.CodeAuthBadSignature, "The access set's signature does not verify.")
	}
	body, err := set.Encode()
	if err == nil {
		// What is stored must decode again (a Go caller could pass keys of
		// the wrong length, which the wire decoder would have refused).
		_, err = wire.DecodeAccessSet(body)
	}
	if err != nil {
		return AccessChange{}, wire.Errorf(wire.CodeMalformed, "The access set is not well formed.")
	}
	var change AccessChange
	now := s.unix()
	err = s.st.Update(ctx, func(tx store.Tx) error {
		w, err := lockWorkspace(ctx, tx, ws)
		if err != nil {
			return err
		}
		if set.Version != w.AccessVersion+1 {
			return errNotNext(w.AccessVersion)
		}
		var prev *cachedSet
		if w.AccessVersion == 0 {
			if w.GenesisConsumed {
				return wire.Errorf(wire.CodeAuthGenesisUsed, "The genesis key has already been used.")
			}
			if !bytes.Equal(set.Signer, w.GenesisKey) {
				return wire.Errorf(wire.CodeAuthNotAdmin, "The first access set must be signed by the workspace's genesis key.")
			}
			if err := tx.ConsumeGenesis(ctx, ws); err != nil {
				return err
			}
		} else {
			if bytes.Equal(set.Signer, w.GenesisKey) {
				return wire.Errorf(wire.CodeAuthGenesisUsed, "The genesis key has already been used.")
			}
			prev, err = s.currentSet(ctx, tx, ws, w.AccessVersion)
			if err != nil {
				return err
			}
			// A device the current set does not list as an admin may
			// publish only with admin authority in the roster the relay
			// folded itself (rosterAdmin, below): a recovered only admin's
			// device after its probation, whom no other admin could list
			// (lifecycle.md "Recovery onto a new device").
			if d, ok := prev.set.Device(set.Signer); (!ok || !d.Admin) && w.RosterIndex == 0 {
				return wire.Errorf(wire.CodeAuthNotAdmin, "Only an admin device of the current access set may publish the next one.")
			}
			if err := s.rosterAdmin(ctx, tx, ws, w, set.Signer); err != nil {
				return err
			}
		}
		change = AccessChange{Workspace: ws, Version: set.Version}
		next := set.KeyIDs()
		if prev != nil {
			for id := range prev.kinds {
				if _, ok := next[id]; !ok {
					change.RemovedKeys = append(change.RemovedKeys, id)
				}
			}
			for _, g := range prev.set.Grants {
				if !set.HasGrant(g) {
					change.VoidedGrants = append(change.VoidedGrants, g)
				}
			}
		}
		sortIDs(change.RemovedKeys)
		sortIDs(change.VoidedGrants)
		if err := tx.PutAccessSet(ctx, ws, set.Version, body, now); err != nil {
			return err
		}
		if err := tx.AddDepartedKeys(ctx, ws, change.RemovedKeys, set.Version); err != nil {
			return err
		}
		if err := tx.AddGrants(ctx, ws, set.Grants, set.Version); err != nil {
			return err
		}
		if err := tx.VoidGrants(ctx, ws, change.VoidedGrants, set.Version); err != nil {
			return err
		}
		return tx.Emit(ctx, store.Change{Kind: store.ChangeAccessSet, Workspace: ws, Version: set.Version})
	})
	if err != nil {
		return AccessChange{}, err
	}
	s.mu.Lock()
	if old := s.cache[ws]; old == nil || old.version < set.Version {
		s.cache[ws] = newCachedSet(set, now)
	}
	s.mu.Unlock()
	return change, nil
}

// mayPublish refuses, from the cached current set or one read transaction
// and before any signature check or write transaction, a set that could not
// be accepted: version 1 once the genesis key is consumed or not signed by
// it, a later version not signed by an admin device of the current set. An
// unauthenticated client can reach Publish (the bootstrap publish), so
// what it costs the relay to refuse must not depend on a signature check or
// a write. The transaction in Publish checks all of it again.
func (s *Service) mayPublish(ctx context.Context, ws wire.ID, set *wire.AccessSet) error {
	s.mu.Lock()
	c := s.cache[ws]
	s.mu.Unlock()
	if c == nil || set.Version > c.version+1 {
		// Unknown here, or another relay process may have moved it on.
		var w store.Workspace
		c = nil
		err := s.st.View(ctx, func(tx store.Tx) error {
			var err error
			w, err = tx.Workspace(ctx, ws)
			if errors.Is(err, store.ErrNotFound) {
				return errUnknownWorkspace(ws)
			}
			if err != nil || w.AccessVersion == 0 {
				return err
			}
			c, err = s.currentSet(ctx, tx, ws, w.AccessVersion)
			return err
		})
		if err != nil {
			return err
		}
		if c == nil {
			switch {
			case set.Version != 1:
				return errNotNext(0)
			case w.GenesisConsumed:
				return wire.Errorf(wire.CodeAuthGenesisUsed, "The genesis key has already been used.")
			case !bytes.Equal(set.Signer, w.GenesisKey):
				return wire.Errorf(wire.CodeAuthNotAdmin, "The first access set must be signed by the workspace's genesis key.")
			}
			return nil
		}
	}
	if set.Version != c.version+1 {
		return errNotNext(c.version)
	}
	if d, ok := c.set.Device(set.Signer); ok && d.Admin {
		return nil
	}
	var genesis, rosterAdmin bool
	err := s.st.View(ctx, func(tx store.Tx) error {
		w, err := tx.Workspace(ctx, ws)
		if err != nil {
			return err
		}
		genesis = bytes.Equal(set.Signer, w.GenesisKey)
		if !genesis && w.RosterIndex > 0 {
			// Not listed as an admin: admin authority in the roster the
			// relay folded (publish checks it again in its write
			// transaction; the fold has its own lock, and a read
			// transaction that sees an older store only refolds it).
			rosterAdmin = s.rosterAdmin(ctx, tx, ws, w, set.Signer) == nil
		}
		return nil
	})
	if err == nil && genesis {
		return wire.Errorf(wire.CodeAuthGenesisUsed, "The genesis key has already been used.")
	}
	if err == nil && rosterAdmin {
		return nil
	}
	return wire.Errorf(wire.CodeAuthNotAdmin, "Only an admin device of the current access set may publish the next one.")
}

func errNotNext(current uint64) error {
	return wire.Errorf(wire.CodeCASConflict, "The access set is not the next version; fetch the current one and retry.",
		wire.U("version", current))
}

// validateSetShape refuses sets no admin could use: no admin device,
// duplicate keys.
func validateSetShape(set *wire.AccessSet) error {
	admin, bad := false, false
	seen := map[wire.ID]bool{}
	refuse := func() error {
		if bad {
			return wire.Errorf(wire.CodeBadObject, "The access set lists a key that is not a canonical Ed25519 key of the prime-order subgroup.")
		}
		return wire.Errorf(wire.CodeBadObject, "The access set lists a key twice.")
	}
	add := func(k []byte) bool {
		if len(k) == 32 && !wire.PrimeOrderKey(k) { // a wrong length is malformed, below
			bad = true
			return false
		}
		id := wire.KeyID(k)
		if seen[id] {
			return false
		}
		seen[id] = true
		return true
	}
	for _, d := range set.Devices {
		admin = admin || d.Admin
		if !add(d.Pub) {
			return refuse()
		}
	}
	for _, k := range append(append([][]byte(nil), set.Agents...), set.Recovery...) {
		if !add(k) {
			return refuse()
		}
	}
	if !admin {
		return wire.Errorf(wire.CodeBadObject, "The access set has no admin device, so nobody could ever publish the next one.")
	}
	for _, g := range set.Grants {
		if !wire.PrimeOrderKey(g[:]) {
			return wire.Errorf(wire.CodeBadObject, "The access set lists a grant that is not a valid Ed25519 key of prime order.")
		}
	}
	return nil
}

func sortIDs(ids []wire.ID) {
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && bytes.Compare(ids[j][:], ids[j-1][:]) < 0; j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
}

// Authenticate checks an Auth answering the challenge b (design/gaps.md
// "Relay protocol": a device, agent or recovery key of the current access
// set, or an invite grant). b.Relay must be this relay's id and b.Host a
// host this relay serves (the transport checks the host against the
// request). It returns the principal: the key's id and kind.
func (s *Service) Authenticate(ctx context.Context, b wire.AuthBinding, a *wire.Auth) (wire.AuthOK, error) {
	if a == nil {
		return wire.AuthOK{}, wire.Errorf(wire.CodeMalformed, "Missing authentication.")
	}
	if a.Method == wire.PrincipalGrant && !(wire.PrimeOrderKey(a.Grant) && wire.PrimeOrderKey(a.Key)) {
		return wire.AuthOK{}, wire.Errorf(wire.CodeAuthBadSignature, "The grant or device key is not a valid Ed25519 key of prime order.")
	}
	ws := b.Workspace
	self, err := s.RelayID(ctx)
	if err != nil {
		return wire.AuthOK{}, err
	}
	if b.Relay != self {
		return wire.AuthOK{}, wire.Errorf(wire.CodeAuthWrongRelay, "This authentication answers another relay's challenge.")
	}
	if a.Host != b.Host {
		return wire.AuthOK{}, wire.Errorf(wire.CodeAuthWrongRelay,
			fmt.Sprintf("This authentication was made for the relay at %q, not for this relay (%q).", a.Host, b.Host),
			wire.T("host", b.Host))
	}
	if err := a.VerifyChallenge(b); err != nil {
		return wire.AuthOK{}, wire.Errorf(wire.CodeAuthBadSignature, "The challenge signature does not verify.")
	}
	id := wire.KeyID(a.Key)
	var ok wire.AuthOK
	update := a.Method == wire.PrincipalGrant
	run := s.st.View
	if update {
		run = s.st.Update
	}
	err = run(ctx, func(tx store.Tx) error {
		w, err := tx.Workspace(ctx, ws)
		if errors.Is(err, store.ErrNotFound) {
			return errUnknownWorkspace(ws)
		}
		if err != nil {
			return err
		}
		c, err := s.currentSet(ctx, tx, ws, w.AccessVersion)
		if err != nil {
			return err
		}
		if a.Method != wire.PrincipalGrant {
			if kind, in := c.kinds[id]; in && kind == a.Method {
				ok = wire.AuthOK{Kind: kind, Principal: id, AccessVersion: c.version}
				return nil
			}
			return refuseKey(ctx, tx, ws, id)
		}
		g := wire.ID(a.Grant)
		void, err := tx.GrantVoid(ctx, ws, g)
		if err != nil {
			return err
		}
		if void {
			return wire.Errorf(wire.CodeAuthRevoked, "This invite grant has been voided.")
		}
		if !c.set.HasGrant(g) {
			return wire.Errorf(wire.CodeAuthUnknownKey, "This invite grant is not in the workspace's access set.")
		}
		if _, in := c.kinds[id]; !in {
			departed, err := tx.KeyDeparted(ctx, ws, id)
			if err != nil {
				return err
			}
			if departed {
				return wire.Errorf(wire.CodeAuthRevoked, "This key was removed from the workspace.")
			}
		}
		// A grant carries one key per use of its invite: the first that
		// authenticated with it, up to the roster's max_uses.
		uses, err := s.grantUses(ctx, tx, ws, g)
		if err != nil {
			return err
		}
		if err := tx.BindGrantKey(ctx, ws, g, a.Key, uses); err != nil {
			return err
		}
		_, bound, err := tx.GrantKey(ctx, ws, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return wire.Errorf(wire.CodeAuthGrantUsed, "This invite link has already been used as many times as it allows.")
		case err != nil:
			return err
		case bound != g:
			return wire.Errorf(wire.CodeAuthUnknownKey, "This key is already bound to another invite grant.")
		}
		ok = wire.AuthOK{Kind: wire.PrincipalGrant, Principal: id, AccessVersion: c.version}
		return nil
	})
	return ok, err
}

// refuseKey returns auth/revoked for a key an earlier set carried and
// auth/unknown_key otherwise.
func refuseKey(ctx context.Context, tx store.Tx, ws, id wire.ID) error {
	departed, err := tx.KeyDeparted(ctx, ws, id)
	if err != nil {
		return err
	}
	if departed {
		return wire.Errorf(wire.CodeAuthRevoked, "This key was removed from the workspace.")
	}
	return wire.Errorf(wire.CodeAuthUnknownKey, "This key is not in the workspace's access set.")
}

// Allowed reports whether a connected principal may stay connected under the
// current access set: its key is in the set, or (for a grant connection) its
// key is in the set or its grant is live and in the set.
func (s *Service) Allowed(ctx context.Context, ws wire.ID, kind wire.PrincipalKind, principal wire.ID) (bool, error) {
	var allowed bool
	err := s.st.View(ctx, func(tx store.Tx) error {
		var err error
		allowed, err = s.allowed(ctx, tx, ws, kind, principal)
		return err
	})
	return allowed, err
}

func (s *Service) allowed(ctx context.Context, tx store.Tx, ws wire.ID, kind wire.PrincipalKind, principal wire.ID) (bool, error) {
	w, err := tx.Workspace(ctx, ws)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	c, err := s.currentSet(ctx, tx, ws, w.AccessVersion)
	if err != nil {
		return false, err
	}
	if k, in := c.kinds[principal]; in {
		return kind == wire.PrincipalGrant || k == kind, nil
	}
	if kind != wire.PrincipalGrant {
		return false, nil
	}
	_, g, err := tx.GrantKey(ctx, ws, principal)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	void, err := tx.GrantVoid(ctx, ws, g)
	if err != nil {
		return false, err
	}
	return !void && c.set.HasGrant(g), nil
}
