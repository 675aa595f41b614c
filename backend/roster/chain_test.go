package roster

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"weald/backend/identity"
)

// chainWorld builds a chain that uses every kind of operation.
func chainWorld(t testing.TB) *world {
	w := bootstrapped(t)
	m := w.join(w.owner, RoleMember)
	second, _ := identity.GenerateKey[identity.Device](w.rnd)
	w.must(m.signer(), w.admitDevice(m.user, second))
	w.must(w.owner.signer(), &SetRole{User: m.user, Role: RoleAdmin})
	design := w.channel(w.owner, AdmissionParent, "design")
	private := w.channel(w.owner, AdmissionExplicit, "private")
	w.must(w.owner.signer(), &PendingAdd{Group: private, Devices: []identity.DeviceID{m.id()}})
	w.must(w.owner.signer(), &PendingResolve{Group: private, Device: m.id(), Completed: true})
	w.must(w.owner.signer(), &RenameGroup{Group: design, Name: "design-team"})
	ph, _ := identity.NewRecoveryPhrase(w.rnd)
	rk, _ := identity.DeriveRecoveryKeys(ph)
	w.must(m.signer(), w.admitRecovery(m.user, rk))
	agent, _ := w.newAgent()
	cert, _ := identity.IssueDelegation(m.dev, agent.Public(), []identity.GroupID{ActivityGroupID(w.ws)}, w.now, w.now.Add(time.Hour))
	w.must(m.signer(), w.admitAgent(cert))
	prop := w.must(w.owner.signer(), &RetentionPolicy{Group: design, MediaWindow: 180 * 24 * time.Hour})
	w.must(m.signer(), &RetentionApprove{Proposal: prop.Head()})
	inv := w.invite(w.owner, RoleMember)
	w.must(w.owner.signer(), &RevokeInvite{Invite: inv.id})
	w.must(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{identity.DevicePrincipal(identity.DeviceIDOf(second.Public()))}})
	w.must(m.signer(), &SetName{User: m.user, Name: "Dana"})
	pb, pair := w.pairBody(m.user, 10*time.Minute)
	w.must(m.signer(), pb)
	paired := member{user: m.user, dev: w.newMember().dev}
	w.must(paired.signer(), w.redeemBody(pair, paired))
	return w
}

func TestValidateWholeChain(t *testing.T) {
	w := chainWorld(t)
	st, err := Validate(w.ops, Options{Genesis: ptr(w.gen.Public())})
	if err != nil {
		t.Fatal(err)
	}
	if st.Head() != w.st.Head() || st.Len() != len(w.ops) || st.Head() != HeadOf(w.ops[len(w.ops)-1]) {
		t.Fatal("head")
	}
	// Heads chain: each operation names SHA-256 of the previous one, the first names zero.
	var prev Head
	for i, b := range w.ops {
		op, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if op.PrevHead != prev {
			t.Fatalf("op %d extends %s", i, op.PrevHead.ShortString())
		}
		prev = HeadOf(b)
	}
	g, _ := st.Group(GeneralGroupID(w.ws))
	if g.Policy.Hash() == new(GroupPolicy).Hash() {
		t.Fatal("policy hash")
	}
	if _, err := Validate(w.ops, Options{GenesisHead: ptr(HeadOf(w.ops[0]))}); err != nil {
		t.Fatal(err)
	}
	if _, err := Validate(w.ops, Options{GenesisHead: ptr(HeadOf(w.ops[1]))}); !errors.Is(err, ErrGenesis) {
		t.Fatalf("chain with another genesis accepted: %v", err)
	}
	other, _ := identity.GenerateKey[identity.Genesis](newRand(99))
	if _, err := Validate(w.ops, Options{Genesis: ptr(other.Public())}); !errors.Is(err, ErrGenesis) {
		t.Fatalf("foreign genesis key accepted: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

// Tampering with any operation rejects the chain from exactly that index,
// and the state is the valid prefix.
func TestChainTamperingAtEachPosition(t *testing.T) {
	w := chainWorld(t)
	n := len(w.ops)
	for i := 0; i < n; i++ {
		b := w.ops[i]
		// Several byte positions per operation: header, actor, body, signature.
		for _, pos := range []int{0, 5, 33, 42, 43, len(b) / 2, len(b) - 70, len(b) - 1} {
			if pos < 0 || pos >= len(b) {
				continue
			}
			ops := cloneOps(w.ops)
			ops[i] = bytes.Clone(b)
			ops[i][pos] ^= 0x20
			st, err := Validate(ops, Options{})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("op %d byte %d: tampered chain accepted (%v)", i, pos, err)
			}
			if e.Index != i || st.Len() != i {
				t.Fatalf("op %d byte %d: rejected at %d (%v), state len %d", i, pos, e.Index, err, st.Len())
			}
		}
		// Dropping operation i breaks the head at i (or later for the last).
		if i < n-1 {
			ops := append(cloneOps(w.ops[:i]), w.ops[i+1:]...)
			_, err := Validate(ops, Options{})
			var e *Error
			if !errors.As(err, &e) || e.Index != i || !errors.Is(err, ErrHeadMismatch) {
				t.Fatalf("dropping %d: %v", i, err)
			}
		}
	}
	// Replaying an operation and swapping two are refused.
	ops := append(cloneOps(w.ops), w.ops[n-1])
	if _, err := Validate(ops, Options{}); !errors.Is(err, ErrHeadMismatch) {
		t.Fatalf("replay: %v", err)
	}
	ops = cloneOps(w.ops)
	ops[4], ops[5] = ops[5], ops[4]
	if _, err := Validate(ops, Options{}); !errors.Is(err, ErrHeadMismatch) {
		t.Fatalf("swap: %v", err)
	}
	// Truncated bytes.
	ops = cloneOps(w.ops)
	ops[3] = ops[3][:len(ops[3])-1]
	if _, err := Validate(ops, Options{}); !errors.Is(err, ErrDecode) {
		t.Fatalf("truncated: %v", err)
	}
}

func cloneOps(ops [][]byte) [][]byte { return append([][]byte(nil), ops...) }

func TestGenesisRules(t *testing.T) {
	w := newWorld(t)
	// A second genesis.
	w.fail(w.owner.signer(), w.genesisBody(w.owner), ErrGenesis)
	// A first operation that is not genesis.
	w2 := &world{t: t, rnd: newRand(5), now: w.now, st: New(Options{})}
	w2.ws = w.ws
	w2.gen = w.gen
	m := w2.newMember()
	w2.fail(m.signer(), &SetRole{User: m.user, Role: RoleAdmin}, ErrGenesis)
	// Genesis signed by another device than it admits, or with a bad genesis signature.
	x := w2.newMember()
	w2.fail(x.signer(), w2.genesisBody(m), ErrBadOperation)
	b := w2.genesisBody(m)
	b.GenesisSig[0] ^= 1
	w2.fail(m.signer(), b, ErrBadSignature)
}

func TestTimeRules(t *testing.T) {
	w := bootstrapped(t)
	w.now = w.now.Add(-time.Hour)
	w.fail(w.owner.signer(), &RenameGroup{Group: GeneralGroupID(w.ws), Name: "x"}, ErrTimeOrder)
	w.now = w.now.Add(time.Hour)

	clock := identity.ClockFunc(func() time.Time { return w.now })
	st, err := Validate(w.ops, Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	op, _ := Sign(w.owner.signer(), st.Head(), w.now.Add(10*time.Minute), &RenameGroup{Group: GeneralGroupID(w.ws), Name: "x"})
	if err := st.Apply(op); !errors.Is(err, ErrFuture) {
		t.Fatalf("future op: %v", err)
	}
	op, _ = Sign(w.owner.signer(), st.Head(), w.now.Add(time.Minute), &RenameGroup{Group: GeneralGroupID(w.ws), Name: "x"})
	if err := st.Apply(op); err != nil {
		t.Fatal(err)
	}
}

func TestHandBuiltOperationMustMatchBytes(t *testing.T) {
	w := bootstrapped(t)
	op := w.sign(w.owner.signer(), &RenameGroup{Group: GeneralGroupID(w.ws), Name: "x"})
	op.Body = &RenameGroup{Group: GeneralGroupID(w.ws), Name: "y"}
	if err := w.st.Apply(op); !errors.Is(err, ErrBadOperation) {
		t.Fatalf("edited operation applied: %v", err)
	}
	if err := w.st.Apply(&Operation{Body: &DeleteGroup{}}); !errors.Is(err, ErrBadOperation) {
		t.Fatalf("unsigned operation applied: %v", err)
	}
}

// An operation applied as built by Sign (with sub-millisecond times in its
// fields) folds to exactly the state its bytes fold to on another client.
func TestApplyUsesTheBytes(t *testing.T) {
	w := bootstrapped(t)
	w.now = w.now.Add(123456 * time.Nanosecond)
	b := w.groupBody(w.owner, KindChannel, AdmissionParent, HistoryOpen, w.randomGroup(), false, "design")
	op := w.sign(w.owner.signer(), b)
	if err := w.st.Apply(op); err != nil {
		t.Fatal(err)
	}
	w.ops = append(w.ops, op.Bytes())
	fresh, err := Validate(w.ops, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fresh, w.st) {
		t.Fatal("state from a Sign-built operation differs from the state of its bytes")
	}
}
