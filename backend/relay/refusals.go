package relay

import (
	"context"
	"errors"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// Refused access-set publications (spec/lifecycle.md "Detection": a
// rejected access-set publication by a probationary authorizer is an
// attempted takeover that every pre-existing admin is told of). The relay
// keeps the publication as sent; clients verify it and name its signer.

// noteRefusal keeps set when it was refused for want of admin authority
// (auth/not_admin) although its signature verifies and its signer is a
// device of the current access set: a device of the workspace tried to
// publish. Anything else is not kept. A failure to keep it is not the
// publisher's problem and changes nothing.
func (s *Service) noteRefusal(ctx context.Context, ws wire.ID, set *wire.AccessSet, err error) {
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeAuthNotAdmin || set.Version <= 1 || set.Workspace != ws {
		return
	}
	if set.VerifySignature() != nil {
		return
	}
	body, err := set.Encode()
	if err != nil || len(body) > 1<<20 {
		return
	}
	// Whether the signer is a device of the current set is read first, in a
	// read transaction: a signer from outside the workspace (anyone, before
	// AUTH) must not cost the relay a write transaction
	// (TestPreAuthPublishIsRefusedWithoutAWrite). The write below checks
	// again under the workspace lock.
	if !s.signerIsDevice(ctx, ws, set.Signer) {
		return
	}
	_ = s.st.Update(ctx, func(tx store.Tx) error {
		w, err := lockWorkspace(ctx, tx, ws)
		if err != nil || w.AccessVersion == 0 {
			return err
		}
		cur, err := s.currentSet(ctx, tx, ws, w.AccessVersion)
		if err != nil {
			return err
		}
		if _, ok := cur.set.Device(set.Signer); !ok {
			return nil
		}
		return tx.AddAccessRefusal(ctx, ws, uint64(s.unix()), body)
	})
}

// signerIsDevice reports whether signer is a device of ws's current access
// set, read without a write transaction.
func (s *Service) signerIsDevice(ctx context.Context, ws wire.ID, signer []byte) bool {
	in := false
	_ = s.st.View(ctx, func(tx store.Tx) error {
		w, err := tx.Workspace(ctx, ws)
		if err != nil || w.AccessVersion == 0 {
			return err
		}
		cur, err := s.currentSet(ctx, tx, ws, w.AccessVersion)
		if err != nil {
			return err
		}
		_, in = cur.set.Device(signer)
		return nil
	})
	return in
}

// AccessRefusals returns the kept refusals of ws with id > after,
// ascending, at most wire.MaxAccessRefusals.
func (s *Service) AccessRefusals(ctx context.Context, ws wire.ID, after uint64) (*wire.AccessRefusals, error) {
	out := &wire.AccessRefusals{}
	err := s.st.View(ctx, func(tx store.Tx) error {
		var err error
		out.Refusals, err = tx.AccessRefusals(ctx, ws, after)
		return err
	})
	return out, err
}
