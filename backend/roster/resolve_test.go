package roster

import (
	"bytes"
	"crypto/ed25519"
	"testing"
	"time"

	"weald/backend/wire"
)

// TestRetentionResolveApprovals: resolving a frozen retention chain in a
// two-admin workspace needs both admins' signatures of the same
// RetentionResolution. From the attacker's side: a member may not propose
// or approve one; a proposal or approval signed by another device's key,
// without a signature, or over another key (a replay of an approval of the
// competing line) is refused; an admin may not approve twice, nor propose a
// second resolution of the group while its first is pending. Each refusal
// leaves the proposal pending with the approvals it had.
func TestRetentionResolveApprovals(t *testing.T) {
	w := bootstrapped(t)
	general := GeneralGroupID(w.ws)
	m := w.join(w.owner, RoleAdmin)
	plain := w.join(w.owner, RoleMember)
	ed := func(x member) ed25519.PrivateKey { return ed25519.NewKeyFromSeed(x.dev.Seed()) }
	keep := bytes.Repeat([]byte{7}, 32)
	forged := bytes.Repeat([]byte{9}, 32)
	body := func(x member, key []byte) *RetentionResolve {
		b := &RetentionResolve{Group: general, Key: key}
		r := b.Resolution()
		r.Approve(ed(x))
		b.Relay = &r.Approvals[0]
		return b
	}
	approval := func(x member, key []byte) *wire.Approval { return body(x, key).Relay }

	w.fail(plain.signer(), body(plain, keep), ErrNotAuthorized)
	w.fail(w.owner.signer(), body(m, keep), ErrBadRetention)                                     // another device's signature
	w.fail(w.owner.signer(), &RetentionResolve{Group: general, Key: keep}, ErrBadRetention)      // none
	w.fail(w.owner.signer(), &RetentionResolve{Group: general, Key: keep[:31]}, ErrBadRetention) // not a key
	wrong := body(w.owner, keep)
	wrong.Key = forged // the signature covers the other key
	w.fail(w.owner.signer(), wrong, ErrBadRetention)

	p := w.must(w.owner.signer(), body(w.owner, keep))
	ps := w.st.PendingRetentions()
	if len(ps) != 1 || ps[0].Resolution == nil || !bytes.Equal(ps[0].Resolution.Key, keep) || ps[0].Threshold != 2 || ps[0].Group != general {
		t.Fatalf("pending: %+v", ps)
	}
	if len(w.st.ApprovedResolutions()) != 0 {
		t.Fatal("one admin's proposal is approved")
	}
	w.fail(w.owner.signer(), body(w.owner, forged), ErrDuplicate) // a second proposal by the same admin
	w.fail(w.owner.signer(), &RetentionApprove{Proposal: p.Head(), Relay: approval(w.owner, keep)}, ErrDuplicate)
	w.fail(m.signer(), &RetentionApprove{Proposal: p.Head(), Relay: approval(m, forged)}, ErrBadRetention)     // over another key
	w.fail(m.signer(), &RetentionApprove{Proposal: p.Head(), Relay: approval(w.owner, keep)}, ErrBadRetention) // the proposer's, copied
	w.fail(m.signer(), &RetentionApprove{Proposal: p.Head()}, ErrBadRetention)
	w.fail(plain.signer(), &RetentionApprove{Proposal: p.Head(), Relay: approval(plain, keep)}, ErrNotAuthorized)
	if ps := w.st.PendingRetentions(); len(ps) != 1 || len(ps[0].Approvals) != 1 {
		t.Fatalf("refused approvals changed the proposal: %+v", ps)
	}
	w.must(m.signer(), &RetentionApprove{Proposal: p.Head(), Relay: approval(m, keep)})
	rs := w.st.ApprovedResolutions()
	if len(rs) != 1 || len(rs[0].Resolution.Approvals) != 2 || !bytes.Equal(rs[0].Resolution.Key, keep) || len(w.st.PendingRetentions()) != 0 {
		t.Fatalf("approved: %+v", rs)
	}
	for _, a := range rs[0].Resolution.Approvals {
		if wire.Verify(a.DeviceKey, wire.LabelRetentionResolution, rs[0].Resolution.TBS(), a.Signature) != nil {
			t.Fatal("a kept approval does not verify over the resolution")
		}
	}
	if g, _ := w.st.Group(general); g.Retention != nil {
		t.Fatal("a resolution set a retention policy")
	}
	w.fail(m.signer(), &RetentionApprove{Proposal: p.Head(), Relay: approval(m, keep)}, ErrBadRetention) // already approved
	// Once the first is approved, an admin may propose another (a chain can
	// freeze again).
	w.must(w.owner.signer(), body(w.owner, forged))
}

// A resolution proposal expires as a compact-now destruction does
// (docs/protocol/retention.md "Compact-now with several admins"): it says
// when (ResolveWindow after it was proposed), is expired only after that,
// and while it waits its proposer may not propose another resolution of
// the group; once expired it may, and the new one waits on its own.
func TestRetentionResolveExpires(t *testing.T) {
	w := bootstrapped(t)
	general := GeneralGroupID(w.ws)
	w.join(w.owner, RoleAdmin)
	ed := ed25519.NewKeyFromSeed(w.owner.dev.Seed())
	body := func(key []byte) *RetentionResolve {
		b := &RetentionResolve{Group: general, Key: key}
		r := b.Resolution()
		r.Approve(ed)
		b.Relay = &r.Approvals[0]
		return b
	}
	proposedAt := w.now
	first := w.must(w.owner.signer(), body(bytes.Repeat([]byte{7}, 32)))
	ps := w.st.PendingRetentions()
	if len(ps) != 1 || !ps[0].Expires.Equal(proposedAt.Add(ResolveWindow)) {
		t.Fatalf("pending: %+v", ps)
	}
	if ps[0].Expired(proposedAt.Add(ResolveWindow)) || !ps[0].Expired(proposedAt.Add(ResolveWindow+time.Second)) {
		t.Fatal("expired at the wrong time")
	}
	w.now = proposedAt.Add(ResolveWindow)
	w.fail(w.owner.signer(), body(bytes.Repeat([]byte{8}, 32)), ErrDuplicate) // still waiting
	w.now = proposedAt.Add(ResolveWindow + time.Second)
	second := w.must(w.owner.signer(), body(bytes.Repeat([]byte{8}, 32)))
	ps = w.st.PendingRetentions()
	if len(ps) != 2 || ps[0].Proposal != first.Head() || ps[1].Proposal != second.Head() ||
		!ps[0].Expired(w.now) || ps[1].Expired(w.now) {
		t.Fatalf("after the first expired: %+v", ps)
	}
	// A destruction says its not_after; a policy never expires.
	if (PendingRetention{Expires: time.Unix(100, 0)}).Expired(time.Unix(100, 999)) || (PendingRetention{}).Expired(time.Unix(1<<40, 0)) {
		t.Fatal("a destruction expired at its not_after, or a policy expired")
	}
}
