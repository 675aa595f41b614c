package roster

import (
	"reflect"
	"testing"
	"time"

	"weald/backend/identity"
)

// FuzzApplySequence drives a bootstrapped roster with a script of validly
// signed operations chosen by the fuzzer (actors, types, targets, times)
// and checks the invariants after every step: a rejected operation leaves
// the state exactly as a shadow copy that only saw accepted operations;
// there is always a live admin; default groups stay; every group's policy
// is a legal combination; at most 512 groups and 64 pending adds each.
func FuzzApplySequence(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17})
	f.Add([]byte{6, 0, 0, 7, 0, 0, 6, 1, 1, 11, 1, 2, 12, 0, 1})
	f.Add([]byte{3, 0, 5, 0, 2, 2, 9, 9, 9, 14, 3, 1})
	f.Fuzz(func(t *testing.T, script []byte) {
		if len(script) > 3*48 {
			script = script[:3*48]
		}
		w := bootstrapped(t)
		shadow, err := Validate(w.ops, Options{})
		if err != nil {
			t.Fatal(err)
		}
		members := []member{w.owner}
		var agents []identity.AgentPrivate
		var invites []invited
		var groups []identity.GroupID
		for _, g := range w.st.Groups() {
			groups = append(groups, g.Policy.Group)
		}
		pick := func(n int, b byte) int { return int(b) % n }
		for i := 0; i+2 < len(script); i += 3 {
			kind, x, y := script[i], script[i+1], script[i+2]
			actor := members[pick(len(members), x)]
			var s Signer = actor.signer()
			var body Body
			var newMember *member
			switch kind % 16 {
			case 0: // invite and redeem
				if !w.st.IsAdmin(w.owner.id()) {
					continue
				}
				inv := w.invite(w.owner, Role(1+y%2))
				if err := shadow.ApplyBytes(w.ops[len(w.ops)-1]); err != nil {
					t.Fatal(err)
				}
				invites = append(invites, inv)
				m := w.newMember()
				newMember = &m
				s, body = m.signer(), w.redeemBody(inv, m)
			case 1: // redeem an old invite again
				if len(invites) == 0 {
					continue
				}
				m := w.newMember()
				newMember = &m
				s, body = m.signer(), w.redeemBody(invites[pick(len(invites), y)], m)
			case 2:
				if y%4 == 3 { // a recovery quorum: 1 or 2 users (maybe the same twice), threshold 0..2
					us := []identity.UserID{members[pick(len(members), x)].user, members[pick(len(members), y/4)].user}
					body = &SetRecoveryQuorum{Threshold: (y / 8) % 3, Users: us[:1+(y/16)%2]}
					break
				}
				body = &SetRole{User: members[pick(len(members), y)].user, Role: Role(1 + y%2)}
			case 3:
				body = &Revoke{RevokedAt: w.now, Targets: []identity.Principal{members[pick(len(members), y)].p()}}
			case 4:
				body = &Revoke{RevokedAt: w.now, Targets: []identity.Principal{members[pick(len(members), y)].up()}}
			case 5:
				a := Admission(1 + y%3)
				h := History(1 + (y/3)%2)
				body = w.groupBody(actor, KindChannel, a, h, w.randomGroup(), y%7 == 0, "c")
			case 6:
				body = &DeleteGroup{Group: groups[pick(len(groups), y)]}
			case 7:
				body = &ArchiveGroup{Group: groups[pick(len(groups), y)], Archived: y%2 == 0}
			case 8:
				if y%2 == 1 { // set-name: own, another's, or a repeat
					body = &SetName{User: members[pick(len(members), y/2)].user, Name: []string{"Dana", "Sam", " bad"}[y%3]}
					break
				}
				body = &RenameGroup{Group: groups[pick(len(groups), y)], Name: "renamed"}
			case 9:
				dev, _ := identity.GenerateKey[identity.Device](w.rnd)
				body = w.admitDevice(members[pick(len(members), y)].user, dev)
			case 10:
				ag, _ := w.newAgent()
				cert, err := identity.IssueDelegation(actor.dev, ag.Public(), []identity.GroupID{groups[pick(len(groups), y)]}, w.now, w.now.Add(time.Duration(y)*time.Second+time.Second))
				if err != nil {
					t.Fatal(err)
				}
				agents = append(agents, ag)
				body = w.admitAgent(cert)
			case 11:
				if len(agents) == 0 {
					continue
				}
				s = AgentSigner(agents[pick(len(agents), y)])
				body = &RenameGroup{Group: groups[0], Name: "agent"}
			case 12:
				if y%3 == 2 { // a vouch, for a device on probation or not
					body = &VouchDevice{Device: members[pick(len(members), x+y)].id()}
					break
				}
				body = &PendingAdd{Group: groups[pick(len(groups), y)], Devices: []identity.DeviceID{members[pick(len(members), x+y)].id()}}
			case 13:
				b, _ := w.inviteBody([]identity.GroupID{RootGroupID(w.ws), groups[pick(len(groups), y)]}, RoleMember, time.Hour, 1)
				body = b
			case 14:
				body = &RetentionPolicy{Group: groups[pick(len(groups), y)], TextWindow: time.Duration(y) * time.Hour}
			case 15:
				w.now = w.now.Add(time.Duration(y) * time.Minute)
				continue
			}
			op := w.sign(s, body)
			if err := w.st.ApplyBytes(op.Bytes()); err != nil {
				if _, ok := err.(*Error); !ok {
					t.Fatalf("untyped error %v", err)
				}
				if !reflect.DeepEqual(w.st, shadow) {
					t.Fatalf("step %d: rejected %s changed the state (%v)", i/3, body.Type(), err)
				}
			} else {
				if err := shadow.ApplyBytes(op.Bytes()); err != nil {
					t.Fatalf("shadow disagrees: %v", err)
				}
				w.ops = append(w.ops, op.Bytes())
				if newMember != nil {
					members = append(members, *newMember)
				}
				if cg, ok := body.(*CreateGroup); ok {
					groups = append(groups, cg.Policy.Group)
				}
			}
			w.now = w.now.Add(time.Second)
			checkInvariants(t, w)
		}
	})
}

func checkInvariants(t *testing.T, w *world) {
	t.Helper()
	if w.st.LiveAdmins() < 1 {
		t.Fatal("no live admin left")
	}
	for _, id := range []identity.GroupID{RootGroupID(w.ws), GeneralGroupID(w.ws), ActivityGroupID(w.ws)} {
		g, ok := w.st.Group(id)
		if !ok || g.Deleted || g.Archived || !g.Policy.Default {
			t.Fatal("a default group was lost")
		}
	}
	gs := w.st.Groups()
	if len(gs) > MaxGroups {
		t.Fatal("too many groups")
	}
	for _, g := range gs {
		if err := g.Policy.CheckLegal(); err != nil {
			t.Fatalf("illegal policy in state: %v", err)
		}
		if len(g.Pending) > MaxPendingPerGroup {
			t.Fatal("too many pending adds")
		}
	}
}
