package roster

import (
	"bytes"
	"testing"
	"time"

	"weald/backend/identity"
)

func TestRecoveryQuorumRegistrationRefusals(t *testing.T) {
	w := bootstrapped(t)
	a := w.join(w.owner, RoleMember)
	b := w.join(w.owner, RoleMember)
	gone := w.join(w.owner, RoleMember)
	w.must(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{gone.up()}})
	set := func(k uint8, us ...identity.UserID) *SetRecoveryQuorum {
		return &SetRecoveryQuorum{Threshold: k, Users: us}
	}

	w.fail(w.owner.signer(), set(0, a.user, b.user), ErrBadQuorum)                    // k < 1
	w.fail(w.owner.signer(), set(3, a.user, b.user), ErrBadQuorum)                    // k > users
	w.fail(w.owner.signer(), set(1), ErrBadQuorum)                                    // nobody
	w.fail(w.owner.signer(), set(2, a.user, a.user), ErrBadQuorum)                    // duplicate
	w.fail(w.owner.signer(), set(1, a.user, gone.user), ErrAlreadyRevoked)            // removed member
	w.fail(w.owner.signer(), set(1, a.user, identity.UserID{9}), ErrUnknownPrincipal) // not a member
	w.fail(a.signer(), set(1, a.user, b.user), ErrNotAuthorized)                      // not an admin
	many := make([]identity.UserID, MaxQuorumUsers+1)
	for i := range many {
		many[i] = identity.UserID{byte(i + 1)}
	}
	w.fail(w.owner.signer(), set(1, many...), ErrDecode) // over the bound: not even decoded
	if _, ok := w.st.RecoveryQuorum(); ok || w.st.QuorumLive() {
		t.Fatal("a refused registration left a quorum")
	}
	w.must(w.owner.signer(), set(2, a.user, b.user))
	q, ok := w.st.RecoveryQuorum()
	if !ok || q.Threshold != 2 || len(q.Users) != 2 || !w.st.QuorumLive() {
		t.Fatalf("quorum %+v %v live %v", q, ok, w.st.QuorumLive())
	}
	// A quorum holding the only admin cannot vouch for her at threshold 2.
	w.must(w.owner.signer(), set(2, w.owner.user, a.user))
	if w.st.QuorumLive() {
		t.Fatal("a quorum that cannot vouch for the only admin is live")
	}
	w.must(w.owner.signer(), set(2, a.user, b.user))
	// Removing a quorum user makes it not live (health shows it again).
	w.must(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{b.up()}})
	if w.st.QuorumLive() {
		t.Fatal("quorum live with a removed user")
	}
}

// quorumWorld: the owner (only admin, with a recovery principal) and three
// members, a quorum of the members with threshold 2, and the owner's
// recovered device on probation.
func quorumWorld(t *testing.T) (w *world, rs Signer, ms []member, rec member) {
	w, _, rs = ownerRecoverable(t)
	for range 3 {
		ms = append(ms, w.join(w.owner, RoleMember))
	}
	w.must(w.owner.signer(), &SetRecoveryQuorum{Threshold: 2, Users: []identity.UserID{ms[0].user, ms[1].user, ms[2].user}})
	rec = w.recoverOwner(rs)
	return w, rs, ms, rec
}

func probation(w *world, id identity.DeviceID) bool {
	d, _ := w.st.Device(id)
	return d.Probation
}

func TestRecoveryQuorumVouches(t *testing.T) {
	w, rs, ms, rec := quorumWorld(t)
	outsider := w.join(w.owner, RoleMember)
	// A non-quorum user's vouch does not count: refused.
	w.fail(outsider.signer(), &VouchDevice{Device: rec.id()}, ErrNotInQuorum)
	// The recovered device cannot vouch for itself, nor may the recovery principal.
	w.fail(rec.signer(), &VouchDevice{Device: rec.id()}, ErrProbation)
	w.fail(rs, &VouchDevice{Device: rec.id()}, ErrNotAuthorized)
	w.must(ms[0].signer(), &VouchDevice{Device: rec.id()})
	if !probation(w, rec.id()) || w.st.VouchesCounted(rec.id()) != 1 {
		t.Fatal("one vouch of two ended probation")
	}
	// The same user vouching twice, from another of its devices too, counts once.
	w.fail(ms[0].signer(), &VouchDevice{Device: rec.id()}, ErrDuplicate)
	second := member{user: ms[0].user}
	second.dev, _ = identity.GenerateKey[identity.Device](w.rnd)
	w.must(ms[0].signer(), w.admitDevice(ms[0].user, second.dev))
	// (admitted after the recovered device: no voucher at all)
	w.fail(second.signer(), &VouchDevice{Device: rec.id()}, ErrNotAuthorized)
	if !probation(w, rec.id()) {
		t.Fatal("probation ended by one user")
	}
	// While the quorum can act, the recovery principal's 72 h self-approval is closed.
	w.now = w.now.Add(ProbationWait + time.Hour)
	w.fail(rs, &ApproveDevice{Device: rec.id()}, ErrNotAuthorized)
	// Still a probationary device: no revoke.
	w.fail(rec.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{w.owner.p()}}, ErrProbation)
	w.must(ms[2].signer(), &VouchDevice{Device: rec.id()})
	if probation(w, rec.id()) || !w.st.IsAdmin(rec.id()) {
		t.Fatal("the k-th vouch did not end probation")
	}
	// Now a full device: it revokes the lost one; a late vouch is refused.
	w.must(rec.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{w.owner.p()}})
	w.fail(ms[1].signer(), &VouchDevice{Device: rec.id()}, ErrBadOperation)
}

// A vouch by a user removed since does not count toward the threshold.
func TestRecoveryQuorumRemovedVoucherDoesNotCount(t *testing.T) {
	w, _, ms, rec := quorumWorld(t)
	w.must(ms[0].signer(), &VouchDevice{Device: rec.id()})
	w.must(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{ms[0].up()}})
	// The removed user signs nothing any more.
	w.fail(ms[0].signer(), &VouchDevice{Device: rec.id()}, ErrActorRevoked)
	w.must(ms[1].signer(), &VouchDevice{Device: rec.id()})
	if !probation(w, rec.id()) || w.st.VouchesCounted(rec.id()) != 1 {
		t.Fatalf("removed user's vouch counted: %d", w.st.VouchesCounted(rec.id()))
	}
	w.must(ms[2].signer(), &VouchDevice{Device: rec.id()})
	if probation(w, rec.id()) {
		t.Fatal("two live vouches did not end probation")
	}
}

// Forged and replayed (old-head) vouches are refused.
func TestRecoveryQuorumForgedAndStaleVouch(t *testing.T) {
	w, _, ms, rec := quorumWorld(t)
	// Signed by another key claiming to be ms[0]'s device.
	op := w.sign(ms[1].signer(), &VouchDevice{Device: rec.id()})
	forged := bytes.Clone(op.Bytes())
	actor := ms[0].id()
	copy(forged[1+32+8+1:], actor[:])
	fop, err := Decode(forged)
	if err != nil {
		t.Fatal(err)
	}
	w.failOp(fop, ErrBadSignature)
	// A genuine vouch built on an older head (replayed after the chain moved on).
	old := w.sign(ms[0].signer(), &VouchDevice{Device: rec.id()})
	w.must(ms[1].signer(), &VouchDevice{Device: rec.id()})
	w.failOp(old, ErrHeadMismatch)
	if !probation(w, rec.id()) {
		t.Fatal("forged or stale vouch counted")
	}
}

// Without a quorum, or once the quorum can no longer reach its threshold,
// the 72 h self-approval is what ends a solo admin's probation.
func TestRecoveryQuorumUnreachableFallsBackToWait(t *testing.T) {
	w, rs, ms, rec := quorumWorld(t)
	w.fail(ms[0].signer(), &VouchDevice{Device: w.owner.id()}, ErrBadOperation) // not on probation
	w.must(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{ms[0].up(), ms[1].up()}})
	w.now = w.now.Add(ProbationWait)
	w.must(rs, &ApproveDevice{Device: rec.id()})
	if probation(w, rec.id()) {
		t.Fatal("self-approval refused with an unreachable quorum")
	}
	// No quorum registered at all: vouching is refused.
	w2, _, rs2 := ownerRecoverable(t)
	m := w2.join(w2.owner, RoleMember)
	rec2 := w2.recoverOwner(rs2)
	w2.fail(m.signer(), &VouchDevice{Device: rec2.id()}, ErrNotInQuorum)
}
