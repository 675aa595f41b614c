package roster

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"testing"

	"weald/backend/identity"
)

// The spec's table of legal combinations, and nothing else.
func TestLegalCombinationTable(t *testing.T) {
	legal := map[string]bool{
		"ws/everyone/open": true, "chan/parent/open": true, "chan/explicit/closed": true, "dm/explicit/closed": true,
	}
	n := 0
	for _, k := range []GroupKind{KindWorkspace, KindChannel, KindDM, 0, 4} {
		for _, a := range []Admission{AdmissionEveryone, AdmissionParent, AdmissionExplicit, 0} {
			for _, h := range []History{HistoryOpen, HistoryClosed, 0} {
				name := fmt.Sprintf("%s/%s/%s", k, a, h)
				if got := legalCombination(k, a, h); got != legal[name] {
					t.Errorf("%s: legal=%v", name, got)
				}
				n++
			}
		}
	}
	if n != 60 {
		t.Fatal(n)
	}
}

// Every illegal combination is refused as an operation, and every legal one
// is accepted, in a real chain.
func TestCreateGroupCombinations(t *testing.T) {
	for _, k := range []GroupKind{KindChannel, KindDM} {
		for _, a := range []Admission{AdmissionEveryone, AdmissionParent, AdmissionExplicit} {
			for _, h := range []History{HistoryOpen, HistoryClosed} {
				t.Run(fmt.Sprintf("%s/%s/%s", k, a, h), func(t *testing.T) {
					w := bootstrapped(t)
					peer := w.join(w.owner, RoleMember)
					id := w.randomGroup()
					if k == KindDM {
						id = DMGroupID(w.ws, peer.user, w.owner.user)
					}
					b := w.groupBody(w.owner, k, a, h, id, false, "x")
					if k == KindDM {
						b.DMPeer = &peer.user
					}
					if legalCombination(k, a, h) {
						w.must(w.owner.signer(), b)
						g, _ := w.st.Group(id)
						if g.Policy.Admission != a || g.Policy.History != h {
							t.Fatal("policy not recorded")
						}
					} else {
						w.fail(w.owner.signer(), b, ErrIllegalPolicy)
					}
				})
			}
		}
	}
	// The root: only everyone/open, only with the derived id, only default.
	w := newWorld(t)
	root := RootGroupID(w.ws)
	for _, c := range []struct {
		a Admission
		h History
	}{{AdmissionEveryone, HistoryClosed}, {AdmissionParent, HistoryOpen}, {AdmissionExplicit, HistoryClosed}} {
		w.fail(w.owner.signer(), w.groupBody(w.owner, KindWorkspace, c.a, c.h, root, true, "Acme"), ErrIllegalPolicy)
	}
	w.fail(w.owner.signer(), w.groupBody(w.owner, KindWorkspace, AdmissionEveryone, HistoryOpen, w.randomGroup(), true, "Acme"), ErrBadGroupID)
	w.fail(w.owner.signer(), w.groupBody(w.owner, KindWorkspace, AdmissionEveryone, HistoryOpen, root, false, "Acme"), ErrIllegalPolicy)
	// A channel before its root.
	w.fail(w.owner.signer(), w.groupBody(w.owner, KindChannel, AdmissionParent, HistoryOpen, GeneralGroupID(w.ws), true, "general"), ErrUnknownGroup)
	// A channel without a parent, a ws with one.
	b := w.groupBody(w.owner, KindWorkspace, AdmissionEveryone, HistoryOpen, root, true, "Acme")
	b.Policy.Parent = &root
	w.fail(w.owner.signer(), b, ErrIllegalPolicy)
}

func TestBootstrapAndDefaults(t *testing.T) {
	w := bootstrapped(t)
	gs := w.st.Groups()
	if len(gs) != 3 {
		t.Fatalf("%d groups", len(gs))
	}
	want := []identity.GroupID{RootGroupID(w.ws), GeneralGroupID(w.ws), ActivityGroupID(w.ws)}
	for i, g := range gs {
		if g.Policy.Group != want[i] || !g.Policy.Default {
			t.Fatalf("group %d: %+v", i, g)
		}
	}
	// A retried bootstrap cannot make a second #general.
	w.fail(w.owner.signer(), w.groupBody(w.owner, KindChannel, AdmissionParent, HistoryOpen, GeneralGroupID(w.ws), true, "general"), ErrGroupExists)
	// Only #general and #activity are default channels.
	w.fail(w.owner.signer(), w.groupBody(w.owner, KindChannel, AdmissionParent, HistoryOpen, w.randomGroup(), true, "x"), ErrBadGroupID)
	w.fail(w.owner.signer(), w.groupBody(w.owner, KindChannel, AdmissionParent, HistoryOpen, DefaultChannelID(w.ws, "random"), true, "random"), ErrBadGroupID)
	// A member cannot create default groups or the root, but can create channels.
	m := w.join(w.owner, RoleMember)
	w.channel(m, AdmissionParent, "design")
	w.channel(m, AdmissionExplicit, "secret")
}

func TestForbiddenTransitions(t *testing.T) {
	w := bootstrapped(t)
	general, activity, root := GeneralGroupID(w.ws), ActivityGroupID(w.ws), RootGroupID(w.ws)
	design := w.channel(w.owner, AdmissionParent, "design")

	// Admission and history never change: re-issuing a policy is refused.
	w.fail(w.owner.signer(), w.groupBody(w.owner, KindChannel, AdmissionExplicit, HistoryClosed, design, false, "design"), ErrPolicyImmutable)
	w.fail(w.owner.signer(), w.groupBody(w.owner, KindChannel, AdmissionExplicit, HistoryClosed, general, true, "general"), ErrPolicyImmutable)
	w.fail(w.owner.signer(), w.groupBody(w.owner, KindChannel, AdmissionParent, HistoryOpen, design, false, "design"), ErrGroupExists)

	// Default groups: not deleted or archived while the root exists.
	for _, g := range []identity.GroupID{general, activity, root} {
		e := w.fail(w.owner.signer(), &DeleteGroup{Group: g}, ErrDefaultGroup)
		if e.Code() != "roster/default_group" {
			t.Fatal(e.Code())
		}
		w.fail(w.owner.signer(), &ArchiveGroup{Group: g, Archived: true}, ErrDefaultGroup)
	}
	// ...but renamed and reordered.
	w.must(w.owner.signer(), &RenameGroup{Group: general, Name: "everyone"})
	w.must(w.owner.signer(), &ReorderGroup{Group: activity, Position: 0})
	if g, _ := w.st.Group(general); g.Name != "everyone" {
		t.Fatal("rename")
	}
	if gs := w.st.Groups(); gs[0].Policy.Group != root || gs[1].Policy.Group != activity {
		t.Fatalf("reorder: %v %v", gs[0].Name, gs[1].Name)
	}
	w.fail(w.owner.signer(), &RenameGroup{Group: general, Name: " padded"}, ErrBadName)
	w.fail(w.owner.signer(), &RenameGroup{Group: general, Name: "a\nb"}, ErrBadName)

	// Ordinary channels: archive, unarchive, delete; a deleted group stays deleted.
	w.must(w.owner.signer(), &ArchiveGroup{Group: design, Archived: true})
	w.fail(w.owner.signer(), &ArchiveGroup{Group: design, Archived: true}, ErrBadOperation)
	w.must(w.owner.signer(), &ArchiveGroup{Group: design, Archived: false})
	w.must(w.owner.signer(), &DeleteGroup{Group: design})
	w.fail(w.owner.signer(), &RenameGroup{Group: design, Name: "back"}, ErrGroupDeleted)
	w.fail(w.owner.signer(), &DeleteGroup{Group: design}, ErrGroupDeleted)
	w.fail(w.owner.signer(), w.groupBody(w.owner, KindChannel, AdmissionParent, HistoryOpen, design, false, "design"), ErrGroupExists)
	w.fail(w.owner.signer(), &RenameGroup{Group: w.randomGroup(), Name: "x"}, ErrUnknownGroup)

	// Only admins or the creator edit a channel; only admins the root.
	m := w.join(w.owner, RoleMember)
	mine := w.channel(m, AdmissionParent, "mine")
	w.must(m.signer(), &RenameGroup{Group: mine, Name: "ours"})
	w.fail(m.signer(), &RenameGroup{Group: general, Name: "mine now"}, ErrNotAuthorized)
	w.fail(m.signer(), &RenameGroup{Group: root, Name: "mine now"}, ErrNotAuthorized)
	w.must(w.owner.signer(), &DeleteGroup{Group: mine})
}

func TestDeterministicIDs(t *testing.T) {
	var ws identity.WorkspaceID
	ws[0] = 7
	h := func(parts ...[]byte) identity.GroupID {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return sha256.Sum256(b)
	}
	if RootGroupID(ws) != h([]byte("weald/ws"), ws[:]) {
		t.Fatal("root")
	}
	if GeneralGroupID(ws) != h([]byte("weald/chan"), ws[:], []byte("general")) ||
		ActivityGroupID(ws) != h([]byte("weald/chan"), ws[:], []byte("activity")) {
		t.Fatal("defaults")
	}
	var a, b identity.UserID
	a[0], b[0] = 1, 2
	if DMGroupID(ws, a, b) != DMGroupID(ws, b, a) || DMGroupID(ws, a, b) != h([]byte("weald/dm"), ws[:], a[:], b[:]) {
		t.Fatal("dm")
	}
	// The same two users in another workspace have another DM id.
	if DMGroupID(identity.WorkspaceID{9}, a, b) == DMGroupID(ws, a, b) {
		t.Fatal("a DM id does not depend on the workspace")
	}
}

func TestDM(t *testing.T) {
	w := bootstrapped(t)
	m := w.join(w.owner, RoleMember)
	other := w.join(w.owner, RoleMember)
	id := DMGroupID(w.ws, w.owner.user, m.user)
	b := w.groupBody(w.owner, KindDM, AdmissionExplicit, HistoryClosed, id, false, "dm")
	b.DMPeer = &m.user
	wrong := w.groupBody(w.owner, KindDM, AdmissionExplicit, HistoryClosed, w.randomGroup(), false, "dm")
	wrong.DMPeer = &m.user
	w.fail(w.owner.signer(), wrong, ErrBadGroupID)
	w.must(w.owner.signer(), b)
	// The simultaneous first message from the other side loses on the head
	// and, re-read, finds the group already there.
	b2 := w.groupBody(m, KindDM, AdmissionExplicit, HistoryClosed, id, false, "dm")
	b2.DMPeer = &w.owner.user
	w.fail(m.signer(), b2, ErrGroupExists)
	// Only the two users' devices are added.
	w.must(w.owner.signer(), &PendingAdd{Group: id, Devices: []identity.DeviceID{m.id()}})
	w.fail(w.owner.signer(), &PendingAdd{Group: id, Devices: []identity.DeviceID{other.id()}}, ErrNotAuthorized)
	w.fail(other.signer(), &PendingAdd{Group: id, Devices: []identity.DeviceID{m.id()}}, ErrNotAuthorized)
	if j := w.st.Entitlement(id, other.p(), w.now, inSet()); j != NotEntitled {
		t.Fatal(j)
	}
	if j := w.st.Entitlement(id, m.p(), w.now, inSet()); j != JoinMemberAdd {
		t.Fatal(j)
	}
	w.fail(w.owner.signer(), &DeleteGroup{Group: id}, ErrBadOperation)
}

func TestGroupLimit(t *testing.T) {
	w := bootstrapped(t)
	for i := 3; i < MaxGroups; i++ {
		w.channel(w.owner, AdmissionParent, fmt.Sprintf("c%d", i))
	}
	if len(w.st.Groups()) != MaxGroups {
		t.Fatal(len(w.st.Groups()))
	}
	e := w.fail(w.owner.signer(), w.groupBody(w.owner, KindChannel, AdmissionParent, HistoryOpen, w.randomGroup(), false, "one more"), ErrLimitGroups)
	if !errors.Is(e, ErrLimitGroups) {
		t.Fatal(e)
	}
	// Only live groups count: a deleted channel makes room for one more.
	last := w.st.Groups()[len(w.st.Groups())-1].Policy.Group
	w.must(w.owner.signer(), &DeleteGroup{Group: last})
	if n := w.st.LiveGroups(); n != MaxGroups-1 {
		t.Fatalf("live groups = %d", n)
	}
	w.channel(w.owner, AdmissionParent, "after delete")
	w.fail(w.owner.signer(), w.groupBody(w.owner, KindChannel, AdmissionParent, HistoryOpen, w.randomGroup(), false, "one more again"), ErrLimitGroups)
}
