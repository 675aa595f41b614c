package roster

import (
	"testing"
	"time"

	"weald/backend/identity"
)

// Bootstrap through the builders, interrupted after each step, resumes to
// the same three groups with the same ids and never a second #general.
func TestBootstrapResumes(t *testing.T) {
	for stop := 0; stop <= 3; stop++ {
		w := newWorld(t)
		steps := BootstrapGroups(w.st, "Acme")
		if len(steps) != 3 {
			t.Fatal(len(steps))
		}
		for _, b := range steps[:stop] {
			w.must(w.owner.signer(), b)
		}
		// "Crash": a new process folds the chain and asks what is missing.
		st, err := Validate(w.ops, Options{})
		if err != nil {
			t.Fatal(err)
		}
		w.st = st
		rest := BootstrapGroups(st, "Acme")
		if len(rest) != 3-stop {
			t.Fatalf("stop %d: %d left", stop, len(rest))
		}
		for _, b := range rest {
			w.must(w.owner.signer(), b)
		}
		if len(BootstrapGroups(w.st, "Acme")) != 0 {
			t.Fatal("bootstrap not complete")
		}
		gs := w.st.Groups()
		if len(gs) != 3 || gs[0].Policy.Group != RootGroupID(w.ws) || gs[1].Policy.Group != GeneralGroupID(w.ws) || gs[2].Policy.Group != ActivityGroupID(w.ws) {
			t.Fatalf("stop %d: groups %v", stop, gs)
		}
	}
}

func TestBuildersProduceValidOperations(t *testing.T) {
	w := newWorld(t)
	for _, b := range BootstrapGroups(w.st, "Acme") {
		w.must(w.owner.signer(), b)
	}
	upd := make([]byte, 32)
	inv, sec, err := NewInvite(w.rnd, w.st, []identity.GroupID{GeneralGroupID(w.ws)}, RoleMember, w.now.Add(time.Hour), upd, 1)
	if err != nil {
		t.Fatal(err)
	}
	if inv.Scopes[0] != RootGroupID(w.ws) || len(inv.Scopes) != 2 {
		t.Fatal("root not added to scopes")
	}
	w.must(w.owner.signer(), inv)
	// The link carries the secret bytes; the joiner rebuilds it.
	sec2, _ := identity.InviteSecretFromBytes(sec.Bytes())
	j := w.newMember()
	rb, err := NewRedemption(w.ws, w.st.Head(), inv.ID, sec2, j.user, j.dev.Public())
	if err != nil {
		t.Fatal(err)
	}
	w.must(j.signer(), rb)
	ch, _ := NewChannel(w.rnd, w.st, "design", AdmissionParent)
	w.must(j.signer(), ch)
	pc, _ := NewChannel(w.rnd, w.st, "private", AdmissionExplicit)
	w.must(j.signer(), pc)
	w.must(j.signer(), NewDM(w.ws, j.user, w.owner.user, "dm"))
	if g, _ := w.st.Group(pc.Policy.Group); g.Policy.History != HistoryClosed {
		t.Fatal("explicit channel not closed")
	}
	gb, _ := NewGenesis(w.ws, w.owner.user, w.owner.dev.Public(), w.gen)
	w.fail(w.owner.signer(), gb, ErrGenesis)
}

// resign re-signs an operation after its body was edited, bypassing Sign's
// filling of derived fields, to forge what a malicious client could send.
func resign(t *testing.T, op *Operation, s Signer) *Operation {
	tbs, err := op.tbs()
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := s.Sign(identity.LabelRosterOp, tbs)
	raw := append(append([]byte{}, tbs...), 0x40, 0x40)
	out := *op
	out.Signature = sig
	out.raw = append(raw, sig...)
	return &out
}

func TestPolicyCreatorMustBeTheActor(t *testing.T) {
	w := bootstrapped(t)
	m := w.join(w.owner, RoleMember)
	ch, _ := NewChannel(w.rnd, w.st, "design", AdmissionParent)
	op := w.sign(m.signer(), ch)
	forged := *op.Body.(*CreateGroup)
	forged.Policy.CreatedBy = w.owner.id() // claim the admin created it
	op.Body = &forged
	w.failOp(resign(t, op, m.signer()), ErrBadOperation)
	op = w.sign(m.signer(), ch)
	forged = *op.Body.(*CreateGroup)
	forged.Policy.CreatedAt = forged.Policy.CreatedAt.Add(-time.Hour)
	op.Body = &forged
	w.failOp(resign(t, op, m.signer()), ErrBadOperation)
}
