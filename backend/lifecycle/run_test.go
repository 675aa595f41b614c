package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
)

// fakeClient records what each step did, as the relay and roster would
// keep it across a crash: revocations, commits per group, receipts.
type fakeClient struct {
	revokes, commits, receipts, accessSets int
	rotated                                map[ID]bool
	stored                                 []byte // the last saved operation
	crashAt                                string
	otherChange                            bool // another admin changed the roster
}

type fakeSteps struct{ c *fakeClient }

var errCrash = errors.New("crash")

func (s fakeSteps) AuthChanges(_ context.Context, since ID) (ID, []string, error) {
	if s.c.otherChange {
		return ID{9}, []string{"set-role by device 1234"}, nil
	}
	return since, nil, nil
}
func (s fakeSteps) Revoke(context.Context, *RemovalOperation) error {
	if s.c.revokes == 0 {
		s.c.revokes++
	}
	return nil
}
func (s fakeSteps) Rotate(_ context.Context, _ *RemovalOperation, slots []*GroupSlot) error {
	for _, g := range slots {
		if !s.c.rotated[g.Group] {
			s.c.rotated[g.Group] = true
			s.c.commits++
		}
		g.Rotated, g.Epoch = true, 2
	}
	return nil
}
func (s fakeSteps) DeleteWraps(context.Context, *RemovalOperation, []*GroupSlot) error { return nil }
func (s fakeSteps) RevokeInvites(context.Context, *RemovalOperation) error             { return nil }
func (s fakeSteps) PublishAccess(context.Context, *RemovalOperation) (uint64, error) {
	s.c.accessSets++
	return 5, nil
}
func (s fakeSteps) WriteReceipt(_ context.Context, op *RemovalOperation) (*Receipt, error) {
	if s.c.receipts == 0 {
		s.c.receipts++
	}
	return &Receipt{Operation: op.ID}, nil
}
func (s fakeSteps) Save(_ context.Context, op *RemovalOperation) error {
	b, err := op.Encode()
	s.c.stored = b
	return err
}
func (fakeSteps) Progress(*RemovalOperation, Step, int, int) {}
func (s fakeSteps) Crash(step string) error {
	if step == s.c.crashAt {
		return errCrash
	}
	return nil
}

func newOp() *RemovalOperation {
	return &RemovalOperation{ID: ID{1}, User: ID{2}, BasedOn: ID{3}, State: StateRunning, Step: StepRevoke,
		Targets: []Principal{{Kind: "device", ID: ID{4}}}, Leaves: []ID{{4}},
		Groups: []GroupSlot{{Group: ID{10}, Name: "root"}, {Group: ID{11}, Name: "general"}, {Group: ID{12}, Name: "x"}}}
}

// TestRunResumesAfterACrashAtEachStep: stopped after each step and resumed
// from what was saved, the operation ends in exactly one receipt, one
// revocation and one commit per group.
func TestRunResumesAfterACrashAtEachStep(t *testing.T) {
	steps := []string{"revoke", "rotate/0", "rotate/1", "rotate/2", "rotate", "wraps", "invites", "access", "receipt"}
	for _, at := range steps {
		t.Run(at, func(t *testing.T) {
			c := &fakeClient{rotated: map[ID]bool{}, crashAt: at}
			op := newOp()
			if err := s(c).Save(context.Background(), op); err != nil {
				t.Fatal(err)
			}
			if err := Run(context.Background(), op, s(c)); !errors.Is(err, errCrash) {
				t.Fatalf("run to the crash: %v", err)
			}
			c.crashAt = ""
			resumed, err := Decode(c.stored)
			if err != nil {
				t.Fatal(err)
			}
			if err := Run(context.Background(), resumed, s(c)); err != nil {
				t.Fatal(err)
			}
			if resumed.State != StateDone || resumed.Receipt == nil || resumed.Receipt.Operation != op.ID {
				t.Fatalf("state %s receipt %v", resumed.State, resumed.Receipt)
			}
			if c.receipts != 1 || c.revokes != 1 || c.commits != 3 || !resumed.Access.Done {
				t.Fatalf("receipts %d revokes %d commits %d access %v", c.receipts, c.revokes, c.commits, resumed.Access)
			}
		})
	}
}

func s(c *fakeClient) fakeSteps { return fakeSteps{c} }

// TestRunPausesWhenTheHeadMovedBeforeTheFirstCommit: another admin's change
// before the first commit pauses the operation with the change listed;
// after the first commit it no longer does.
func TestRunPausesWhenTheHeadMovedBeforeTheFirstCommit(t *testing.T) {
	c := &fakeClient{rotated: map[ID]bool{}, otherChange: true}
	op := newOp()
	err := Run(context.Background(), op, s(c))
	if !errors.Is(err, ErrPaused) || op.State != StateNeedsReapproval || len(op.Intervening) != 1 || c.revokes != 0 {
		t.Fatalf("err %v state %s intervening %v revokes %d", err, op.State, op.Intervening, c.revokes)
	}
	if err := Run(context.Background(), op, s(c)); !errors.Is(err, ErrPaused) {
		t.Fatalf("a paused operation ran: %v", err)
	}
	Reapprove(op, ID{9}, op.Targets, op.Leaves, nil)
	c.otherChange = false
	if err := Run(context.Background(), op, s(c)); err != nil || op.State != StateDone || op.BasedOn != (ID{9}) {
		t.Fatalf("after reapproval: %v %s", err, op.State)
	}
	// Past the first commit, a change does not pause.
	c2 := &fakeClient{rotated: map[ID]bool{}, crashAt: "rotate/0"}
	op2 := newOp()
	if err := Run(context.Background(), op2, s(c2)); !errors.Is(err, errCrash) {
		t.Fatal(err)
	}
	c2.crashAt, c2.otherChange = "", true
	if err := Run(context.Background(), op2, s(c2)); err != nil || op2.State != StateDone {
		t.Fatalf("after the first commit: %v %s", err, op2.State)
	}
}

// TestPartialRemovalSkipsRosterAndAccess: a partial removal revokes
// nothing and publishes no access set.
func TestPartialRemovalSkipsRosterAndAccess(t *testing.T) {
	c := &fakeClient{rotated: map[ID]bool{}}
	op := newOp()
	op.Channel, op.Targets, op.Groups = ID{12}, nil, op.Groups[2:]
	if err := Run(context.Background(), op, s(c)); err != nil {
		t.Fatal(err)
	}
	if c.revokes != 0 || c.accessSets != 0 || c.commits != 1 || op.Access.Done {
		t.Fatalf("revokes %d access %d commits %d", c.revokes, c.accessSets, c.commits)
	}
}

func TestDecodeRefusesIncomplete(t *testing.T) {
	for i, b := range []string{``, `{}`, `{"id":"00"}`, fmt.Sprintf(`{"id":"%s","state":"running"}`, ID{1}.Hex())} {
		if _, err := Decode([]byte(b)); err == nil {
			t.Fatalf("case %d decoded", i)
		}
	}
	op := newOp()
	b, _ := op.Encode()
	got, err := Decode(b)
	if err != nil || !slices.Equal(got.Leaves, op.Leaves) {
		t.Fatal(err)
	}
}
