package roster

import (
	"crypto/ed25519"
	"testing"

	"weald/backend/wire"
)

// TestRetentionDestroyApprovals: a compact-now destruction in a two-admin
// workspace needs both admins' signatures of the same RetentionDestruction;
// one admin alone leaves it pending, and an approval over other bytes (a
// replay of one given for another checkpoint, or an altered window), by
// another device's key, without a signature or by a member is refused.
func TestRetentionDestroyApprovals(t *testing.T) {
	w := bootstrapped(t)
	general := GeneralGroupID(w.ws)
	m := w.join(w.owner, RoleAdmin)
	plain := w.join(w.owner, RoleMember)
	ed := func(x member) ed25519.PrivateKey { return ed25519.NewKeyFromSeed(x.dev.Seed()) }
	cp := wire.EnvelopeRef{Author: wire.ID{1}, Ctr: 7, Hash: wire.ID{2}}
	other := wire.EnvelopeRef{Author: wire.ID{1}, Ctr: 8, Hash: wire.ID{3}}
	nb := uint64(w.now.Unix()) - 60
	body := func(x member, ref wire.EnvelopeRef, notAfter uint64) *RetentionDestroy {
		b := &RetentionDestroy{Group: general, Checkpoint: ref, NotBefore: nb, NotAfter: notAfter}
		d := b.Destruction()
		d.Approve(ed(x))
		b.Relay = &d.Approvals[0]
		return b
	}
	approval := func(x member, ref wire.EnvelopeRef, notAfter uint64) *wire.Approval {
		return body(x, ref, notAfter).Relay
	}
	na := nb + 3600
	w.fail(plain.signer(), body(plain, cp, na), ErrNotAuthorized)
	w.fail(w.owner.signer(), body(m, cp, na), ErrBadRetention)                                                                // another device's signature
	w.fail(w.owner.signer(), &RetentionDestroy{Group: general, Checkpoint: cp, NotBefore: nb, NotAfter: na}, ErrBadRetention) // none
	w.fail(w.owner.signer(), body(w.owner, cp, nb+MaxDestroyWindow+1), ErrBadRetention)
	wrong := body(w.owner, cp, na)
	wrong.NotAfter++ // the signature covers the other expiry
	w.fail(w.owner.signer(), wrong, ErrBadRetention)

	p := w.must(w.owner.signer(), body(w.owner, cp, na))
	ps := w.st.PendingRetentions()
	if len(ps) != 1 || ps[0].Destruction == nil || ps[0].Destruction.Checkpoint != cp || ps[0].Threshold != 2 {
		t.Fatalf("pending: %+v", ps)
	}
	if len(w.st.ApprovedDestructions()) != 0 {
		t.Fatal("one admin's proposal is approved")
	}
	w.fail(w.owner.signer(), &RetentionApprove{Proposal: p.Head(), Relay: approval(w.owner, cp, na)}, ErrDuplicate)
	w.fail(m.signer(), &RetentionApprove{Proposal: p.Head(), Relay: approval(m, other, na)}, ErrBadRetention)    // replayed from another checkpoint
	w.fail(m.signer(), &RetentionApprove{Proposal: p.Head(), Relay: approval(m, cp, na+1)}, ErrBadRetention)     // altered
	w.fail(m.signer(), &RetentionApprove{Proposal: p.Head(), Relay: approval(w.owner, cp, na)}, ErrBadRetention) // the proposer's, copied
	w.fail(m.signer(), &RetentionApprove{Proposal: p.Head()}, ErrBadRetention)
	w.fail(plain.signer(), &RetentionApprove{Proposal: p.Head(), Relay: approval(plain, cp, na)}, ErrNotAuthorized)
	w.must(m.signer(), &RetentionApprove{Proposal: p.Head(), Relay: approval(m, cp, na)})
	ds := w.st.ApprovedDestructions()
	if len(ds) != 1 || len(ds[0].Destruction.Approvals) != 2 || len(w.st.PendingRetentions()) != 0 {
		t.Fatalf("approved: %+v", ds)
	}
	for _, a := range ds[0].Destruction.Approvals {
		if wire.Verify(a.DeviceKey, wire.LabelRetentionDestruction, ds[0].Destruction.TBS(), a.Signature) != nil {
			t.Fatal("a kept approval does not verify over the destruction")
		}
	}
	if g, _ := w.st.Group(general); g.Retention != nil {
		t.Fatal("a destruction set a retention policy")
	}
	w.fail(m.signer(), &RetentionApprove{Proposal: p.Head(), Relay: approval(m, cp, na)}, ErrBadRetention) // already approved
}
