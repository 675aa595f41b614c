package relay

import (
	"testing"

	"weald/backend/relay/store"
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
