package relay

import (
	"context"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// Welcome notices (docs/protocol/wire.md "Welcome notices"). A member that
// added devices or agents by Welcome names the keys the Welcome is for; the
// relay keeps one notice per key and tells that key's connections, so an
// added device reads the one log that holds its Welcome instead of every
// explicit group's log. The relay learns which keys a Welcome adds, which
// it could already tell from the key-package claims just before the
// Welcome and from the added device's reads of that group after it.

// WelcomeNotice keeps a notice, for each key of n.To, that each Welcome of
// n.Welcomes adds it, all or none. The sender must be a device or agent of
// the current access set and the author of each of those mls.welcome
// envelopes. Only
// keys the relay would let connect get a notice (a device or agent of the
// set, or a device still carried by its live invite grant); the others of
// n.To are passed over, so the notices a workspace holds stay bounded by
// its keys. A notice a key already has is kept once. Each new notice is
// emitted as a ChangeWelcome.
func (s *Service) WelcomeNotice(ctx context.Context, ws wire.ID, p wire.AuthOK, n wire.WelcomeNotice) error {
	if p.Kind != wire.PrincipalDevice && p.Kind != wire.PrincipalAgent {
		return wire.Errorf(wire.CodeKeyPackageKind, "Only a device or agent of the workspace may send a Welcome notice.")
	}
	if len(n.To) == 0 || len(n.To) > wire.MaxWelcomeTo || len(n.Welcomes) == 0 || len(n.Welcomes) > wire.MaxWelcomes {
		return wire.Errorf(wire.CodeMalformed, "A Welcome notice names between one and 64 Welcomes and between one and 1024 keys.")
	}
	c, err := s.viewSet(ctx, ws)
	if err != nil {
		return err
	}
	if k, in := c.kinds[p.Principal]; !in || k != p.Kind {
		return wire.Errorf(wire.CodeAuthRevoked, "This key is no longer in the workspace's access set.")
	}
	return s.st.Update(ctx, func(tx store.Tx) error {
		if _, err := lockWorkspace(ctx, tx, ws); err != nil {
			return err
		}
		for _, ref := range n.Welcomes {
			var rows []store.EnvelopeRow
			if ref.Seq > 0 {
				if rows, err = tx.Envelopes(ctx, ws, ref.Group, ref.Seq-1, 1, 1); err != nil {
					return err
				}
			}
			if len(rows) != 1 || rows[0].Seq != ref.Seq || rows[0].Envelope.Kind != wire.KindMLSWelcome || rows[0].Envelope.Author != p.Principal {
				return wire.Errorf(wire.CodeBadObject, "A Welcome notice names only Welcome envelopes this key sent.")
			}
		}
		for _, k := range n.To {
			if kind := c.kinds[k]; kind != wire.PrincipalDevice && kind != wire.PrincipalAgent {
				if ok, err := s.allowed(ctx, tx, ws, wire.PrincipalGrant, k); err != nil || !ok {
					if err != nil {
						return err
					}
					continue
				}
			}
			for _, ref := range n.Welcomes {
				added, err := tx.AddWelcomeNotice(ctx, ws, k, ref, uint64(s.unix()))
				if err != nil {
					return err
				}
				if added {
					if err := tx.Emit(ctx, store.Change{Kind: store.ChangeWelcome, Workspace: ws, Group: ref.Group, Seq: ref.Seq, Head: k}); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}

// Welcomes returns the notices kept for the connection's own key, oldest
// first (at most wire.MaxWelcomes).
func (s *Service) Welcomes(ctx context.Context, ws wire.ID, p wire.AuthOK) (*wire.Welcomes, error) {
	out := &wire.Welcomes{}
	err := s.st.View(ctx, func(tx store.Tx) error {
		var err error
		out.Items, err = tx.WelcomeNotices(ctx, ws, p.Principal)
		return err
	})
	return out, err
}

// WelcomesDone clears notices of the connection's own key (those it does
// not have are ignored).
func (s *Service) WelcomesDone(ctx context.Context, ws wire.ID, p wire.AuthOK, items []wire.WelcomeRef) error {
	if len(items) == 0 || len(items) > wire.MaxWelcomes {
		return wire.Errorf(wire.CodeMalformed, "Clear between one and the most Welcome notices one answer carries.")
	}
	return s.st.Update(ctx, func(tx store.Tx) error {
		return tx.ClearWelcomeNotices(ctx, ws, p.Principal, items)
	})
}
