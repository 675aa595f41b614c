package relay

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"weald/backend/identity"
	"weald/backend/relay/store"
	"weald/backend/roster"
	"weald/backend/wire"
)

func wrapCT(tag wire.ID) []byte { return append(append([]byte{1}, tag[:]...), make([]byte, 60)...) }

func (f *fixture) wrapsDelete(signer string, g wire.ID, tags ...wire.ID) wire.WrapsDelete {
	d := wire.WrapsDelete{Workspace: f.ws, Group: g, Tags: tags}
	d.Sign(key(signer))
	return d
}

// TestDeleteWrapsByAdminInstructionOnly: the relay deletes a group's
// recovery wraps only on a signed instruction of an admin device of the
// current access set, only wraps (a content envelope whose ct looks like a
// wrap with the same tag stays) and only those with a named tag; a refused
// instruction changes nothing; the author whose wraps went keeps its chain;
// a repeated instruction deletes nothing more.
func TestDeleteWrapsByAdminInstructionOnly(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		g := id("wraps group")
		mine, other := id("tag of bob's recovery key"), id("tag of alice's")
		f.mustSend("bob", f.next("bob", g, wire.KindRecoveryWrap, wrapCT(mine)))
		f.mustSend("alice", f.next("alice", g, wire.KindRecoveryWrap, wrapCT(other)))
		f.mustSend("bob", f.next("bob", g, wire.KindContent, wrapCT(mine)))
		f.mustSend("bob", f.next("bob", g, wire.KindRecoveryWrap, wrapCT(mine)))
		before := f.state()
		del := func(d wire.WrapsDelete) error {
			_, err := f.svc.DeleteWraps(f.ctx, f.ws, principal("alice"), d)
			return err
		}
		// A member that is no admin, a bad signature, another workspace, an
		// unknown group: refused, nothing changed.
		f.refused(wire.CodeWrapsNotAdmin, func() error { return del(f.wrapsDelete("bob", g, mine)) })
		forged := f.wrapsDelete("alice", g, mine)
		forged.Tags = append(forged.Tags, other)
		f.refused(wire.CodeAuthBadSignature, func() error { return del(forged) })
		elsewhere := f.wrapsDelete("alice", g, mine)
		elsewhere.Workspace = id("another workspace")
		elsewhere.Sign(key("alice"))
		f.refused(wire.CodeWrongWorkspace, func() error { return del(elsewhere) })
		f.refused(wire.CodeUnknownGroup, func() error { return del(f.wrapsDelete("alice", id("nowhere"), mine)) })
		if f.state() != before {
			t.Fatal("a refused instruction changed the relay's state")
		}
		res, err := f.svc.DeleteWraps(f.ctx, f.ws, principal("alice"), f.wrapsDelete("alice", g, mine))
		if err != nil || res.Envelopes != 2 || res.Bytes != 2*uint64(len(wrapCT(mine))) {
			t.Fatalf("delete: %+v %v", res, err)
		}
		out, err := f.svc.Fetch(f.ctx, f.ws, g, 0, MaxFetchLimit)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []wire.Kind
		for _, e := range out.Envelopes {
			kinds = append(kinds, e.Envelope.Kind)
		}
		if len(kinds) != 2 || kinds[0] != wire.KindRecoveryWrap || kinds[1] != wire.KindContent {
			t.Fatalf("left %v, want alice's wrap and bob's content", kinds)
		}
		// bob's chain goes on after its newest envelope was deleted.
		f.mustSend("bob", f.next("bob", g, wire.KindContent, []byte("after")))
		again, err := f.svc.DeleteWraps(f.ctx, f.ws, principal("alice"), f.wrapsDelete("alice", g, mine))
		if err != nil || again.Envelopes != 0 {
			t.Fatalf("again: %+v %v", again, err)
		}
	})
}

// A batch of wrap deletions is all or none: one item a member who is no
// admin signed (or one naming an unknown group) refuses the whole batch
// with that item's index and deletes nothing, though the other item is an
// admin's; the admin's items alone delete in every group named.
func TestDeleteWrapsBatchAllOrNone(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		g1, g2 := id("batch group 1"), id("batch group 2")
		tag := id("tag of bob's recovery key")
		f.mustSend("bob", f.next("bob", g1, wire.KindRecoveryWrap, wrapCT(tag)))
		f.mustSend("bob", f.next("bob", g2, wire.KindRecoveryWrap, wrapCT(tag)))
		before := f.state()
		batch := func(items ...wire.WrapsDelete) ([]wire.WrapsDeleted, error) {
			return f.svc.DeleteWrapsBatch(f.ctx, f.ws, principal("alice"), items)
		}
		f.refused(wire.CodeWrapsNotAdmin, func() error {
			_, err := batch(f.wrapsDelete("alice", g1, tag), f.wrapsDelete("bob", g2, tag))
			return err
		})
		f.refused(wire.CodeUnknownGroup, func() error {
			_, err := batch(f.wrapsDelete("alice", g1, tag), f.wrapsDelete("alice", id("nowhere"), tag))
			return err
		})
		forged := f.wrapsDelete("alice", g2, tag)
		forged.Group = g1
		f.refused(wire.CodeAuthBadSignature, func() error { _, err := batch(f.wrapsDelete("alice", g1, tag), forged); return err })
		f.refused(wire.CodeMalformed, func() error { _, err := batch(); return err })
		if f.state() != before {
			t.Fatal("a refused batch changed the relay's state")
		}
		res, err := batch(f.wrapsDelete("alice", g1, tag), f.wrapsDelete("alice", g2, tag))
		if err != nil || len(res) != 2 || res[0].Group != g1 || res[0].Envelopes != 1 || res[1].Group != g2 || res[1].Envelopes != 1 {
			t.Fatalf("batch: %+v %v", res, err)
		}
		for _, g := range []wire.ID{g1, g2} {
			if out, err := f.svc.Fetch(f.ctx, f.ws, g, 0, MaxFetchLimit); err != nil || len(out.Envelopes) != 0 {
				t.Fatalf("left %d envelopes (%v)", len(out.Envelopes), err)
			}
		}
	})
}

// TestFetchAccountsForDeletedWraps (docs/protocol/wire.md "Gaps"): every
// seq a FETCH passes over is an envelope, below dropped_below, or a
// tombstone naming the signed WRAPS_DELETE that deleted it (served once per
// answer, byte for byte the admin's); pages end at through, a page cut by
// its limit accounts only up to its last item; the seq of a deleted head
// is not given again.
func TestFetchAccountsForDeletedWraps(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		g := id("tombstone group")
		tag := id("tag of bob's recovery key")
		f.mustSend("bob", f.next("bob", g, wire.KindContent, []byte("1")))      // 1
		f.mustSend("bob", f.next("bob", g, wire.KindRecoveryWrap, wrapCT(tag))) // 2
		f.mustSend("bob", f.next("bob", g, wire.KindRecoveryWrap, wrapCT(tag))) // 3
		f.mustSend("alice", f.next("alice", g, wire.KindContent, []byte("4")))  // 4
		f.mustSend("bob", f.next("bob", g, wire.KindRecoveryWrap, wrapCT(tag))) // 5: the head
		d := f.wrapsDelete("alice", g, tag)
		if res, err := f.svc.DeleteWraps(f.ctx, f.ws, principal("alice"), d); err != nil || res.Envelopes != 3 {
			t.Fatalf("delete: %+v %v", res, err)
		}
		out, err := f.svc.Fetch(f.ctx, f.ws, g, 0, MaxFetchLimit)
		if err != nil {
			t.Fatal(err)
		}
		var seqs, dead []uint64
		for _, e := range out.Envelopes {
			seqs = append(seqs, e.Seq)
		}
		for _, ts := range out.Deleted {
			dead = append(dead, ts.Seq)
			if ts.Tag != tag || int(ts.Deletion) >= len(out.Deletions) {
				t.Fatalf("tombstone %+v", ts)
			}
		}
		if fmt.Sprint(seqs, dead) != "[1 4] [2 3 5]" || out.Through != 5 || out.More || len(out.Deletions) != 1 ||
			!bytes.Equal(out.Deletions[0].Encode(), d.Encode()) {
			t.Fatalf("fetch: envelopes %v tombstones %v through %d more %v deletions %d", seqs, dead, out.Through, out.More, len(out.Deletions))
		}
		if _, gap, ok := out.Account(0, 0, map[uint64]bool{2: true, 3: true, 5: true}); !ok {
			t.Fatalf("the honest answer leaves gap %+v", gap)
		}
		// Pages of 1: each page accounts up to its last item, and the
		// pages together cover every seq once.
		var covered []uint64
		for after, page := uint64(0), 0; page < 10; page++ {
			p, err := f.svc.Fetch(f.ctx, f.ws, g, after, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Envelopes {
				covered = append(covered, e.Seq)
			}
			for _, ts := range p.Deleted {
				covered = append(covered, ts.Seq)
			}
			if p.Through <= after && p.More {
				t.Fatalf("page after %d made no progress: %+v", after, p)
			}
			after = p.Through
			if !p.More {
				break
			}
		}
		slices.Sort(covered)
		if fmt.Sprint(covered) != "[1 2 3 4 5]" {
			t.Fatalf("pages of one covered %v", covered)
		}
		// The deleted head's seq is never given again.
		if a := f.mustSend("alice", f.next("alice", g, wire.KindContent, []byte("6"))); a[0].Seq != 6 {
			t.Fatalf("the envelope after a deleted head got seq %d, want 6", a[0].Seq)
		}
	})
}

// TestDeleteWrapsRefusedToRemovedAdmin is written from the attacker's side
// (issue 12): carol was made an admin and is listed as one in the access
// set; she is then removed (revoked in the roster the relay folds) and the
// access set is not yet republished. Her signed instruction to delete the
// group's recovery wraps is refused with wraps/not_roster_admin and every
// wrap stays; alice, a live admin in both, still deletes.
func TestDeleteWrapsRefusedToRemovedAdmin(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newDirFixture(t, st)
		g := id("wraps group of a removal")
		tag := id("tag of carol's recovery key")
		f.mustSend("carol", f.next("carol", g, wire.KindRecoveryWrap, wrapCT(tag)))
		f.mustSend("alice", f.next("alice", g, wire.KindRecoveryWrap, wrapCT(tag)))
		f.append("alice", f.sign("alice", &roster.SetRole{User: identity.UserID(id("user carol")), Role: roster.RoleAdmin}))
		set := f.newSet(4, []dev{{name: "alice", user: "user alice", admin: true}, {name: "bob", user: "user bob"},
			{name: "carol", user: "user carol", admin: true}, {name: "dave", user: "user dave"}}, "agent", "recovery")
		wire.SignAccessSet(&set, key("alice"))
		if _, err := f.svc.Publish(f.ctx, f.ws, set); err != nil {
			t.Fatal(err)
		}
		f.append("alice", f.sign("alice", &roster.Revoke{RevokedAt: f.clock.now(),
			Targets: []identity.Principal{identity.DevicePrincipal(identity.DeviceIDOf(devKey(t, "carol").Public()))}}))
		before := f.fixture.state()
		f.refused(wire.CodeWrapsNotRosterAdmin, func() error {
			_, err := f.svc.DeleteWraps(f.ctx, f.ws, principal("carol"), f.wrapsDelete("carol", g, tag))
			return err
		})
		f.refused(wire.CodeWrapsNotRosterAdmin, func() error {
			_, err := f.svc.DeleteWrapsBatch(f.ctx, f.ws, principal("alice"),
				[]wire.WrapsDelete{f.wrapsDelete("alice", g, tag), f.wrapsDelete("carol", g, tag)})
			return err
		})
		if f.fixture.state() != before {
			t.Fatal("the removed admin's instruction changed the relay's state")
		}
		if out, err := f.svc.Fetch(f.ctx, f.ws, g, 0, MaxFetchLimit); err != nil || len(out.Envelopes) != 2 {
			t.Fatalf("wraps left after the refusal: %d (%v), want 2", len(out.Envelopes), err)
		}
		res, err := f.svc.DeleteWraps(f.ctx, f.ws, principal("alice"), f.wrapsDelete("alice", g, tag))
		if err != nil || res.Envelopes != 2 {
			t.Fatalf("alice's delete: %+v %v", res, err)
		}
	})
}
