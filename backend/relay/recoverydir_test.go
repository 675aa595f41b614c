package relay

import (
	"encoding/binary"
	"fmt"
	"testing"

	"weald/backend/identity"
	"weald/backend/relay/store"
	"weald/backend/roster"
	"weald/backend/wire"
)

// dirWrapCT is a recovery.wrap ct carrying tag and epoch in the clear.
func dirWrapCT(tag wire.ID, epoch uint64) []byte {
	ct := append(append([]byte{1}, tag[:]...), make([]byte, 8+40)...)
	binary.BigEndian.PutUint64(ct[33:41], epoch)
	return ct
}

// dirFixture is a roster fixture where carol and dave (members, users
// "user carol" and "user dave") redeemed the invite and are listed in the
// access set, and alice (the admin) and carol registered recovery phrases.
type dirFixture struct {
	*rosterFixture
	aliceRec, carolRec identity.RecoveryKeys
}

func (f *rosterFixture) recoveryKeys(seed byte) identity.RecoveryKeys {
	ph, err := identity.NewRecoveryPhrase(&detRand{n: seed})
	if err != nil {
		f.t.Fatal(err)
	}
	rk, err := identity.DeriveRecoveryKeys(ph)
	if err != nil {
		f.t.Fatal(err)
	}
	return rk
}

func (f *rosterFixture) admitRecovery(name string, rk identity.RecoveryKeys) {
	user := identity.UserID(id("user " + name))
	pop, err := roster.RecoveryPossession(identity.WorkspaceID(f.ws), user, rk.Signature)
	if err != nil {
		f.t.Fatal(err)
	}
	f.append(name, f.sign(name, &roster.AdmitRecovery{User: user, Recovery: rk.Signature.Public(), HPKE: rk.HPKE.PublicBytes(), Possession: pop}))
}

func newDirFixture(t *testing.T, st store.Store) *dirFixture {
	f := &dirFixture{rosterFixture: newRosterFixture(t, st)}
	for _, name := range []string{"carol", "dave"} {
		link := f.grantConn(name)
		op := f.redemption(name, name)
		if _, err := f.svc.RosterAppend(f.ctx, f.ws, link, wire.ID(f.state.Head()), op.Bytes()); err != nil {
			t.Fatalf("%s redeems: %v", name, err)
		}
		if err := f.state.Apply(op); err != nil {
			t.Fatal(err)
		}
	}
	set := f.newSet(3, []dev{{name: "alice", user: "user alice", admin: true}, {name: "bob", user: "user bob"},
		{name: "carol", user: "user carol"}, {name: "dave", user: "user dave"}}, "agent", "recovery")
	wire.SignAccessSet(&set, key("alice"))
	if _, err := f.svc.Publish(f.ctx, f.ws, set); err != nil {
		t.Fatal(err)
	}
	f.aliceRec, f.carolRec = f.recoveryKeys(1), f.recoveryKeys(2)
	f.admitRecovery("alice", f.aliceRec)
	f.admitRecovery("carol", f.carolRec)
	return f
}

func ownerOf(rk identity.RecoveryKeys) wire.ID {
	return wire.ID(identity.RecoveryIDOf(rk.Signature.Public()))
}

func recoveryConn(rk identity.RecoveryKeys) wire.AuthOK {
	return wire.AuthOK{Kind: wire.PrincipalRecovery, Principal: wire.KeyID(rk.Signature.Public().Bytes())}
}

func (f *dirFixture) dirDrop(signer string, owner wire.ID, groups ...wire.ID) wire.RecoveryDirDrop {
	d := wire.RecoveryDirDrop{Workspace: f.ws, Owner: owner, Groups: groups}
	d.Sign(key(signer))
	return d
}

// TestRecoveryDirOnlyItsPersonWritesAndReads is written from the
// attackers' side. Carol's devices name her wraps in her directory; the
// slot's current entry is her newest named wrap and its fallback the one
// before. Nobody else may overwrite it (alice, an admin, or dave, a member,
// writing into carol's directory; carol naming alice's wrap, a content
// envelope, a seq past the head, a group of nowhere), nor read it (alice,
// dave, alice's recovery key, an agent); carol's own recovery key reads it.
// A refused request changes nothing. A drop is refused from dave (another
// member) and with a forged signature or another workspace; once carol is
// removed (revoked in the roster, though the access set still lists her)
// her device can neither write, read nor drop her directory, and alice's
// signed drop empties it and is kept.
func TestRecoveryDirOnlyItsPersonWritesAndReads(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newDirFixture(t, st)
		g := id("dir group")
		carol, alice := ownerOf(f.carolRec), ownerOf(f.aliceRec)
		w1 := f.mustSend("carol", f.next("carol", g, wire.KindRecoveryWrap, dirWrapCT(id("carol tag 1"), 1)))[0].Seq
		aw := f.mustSend("alice", f.next("alice", g, wire.KindRecoveryWrap, dirWrapCT(id("alice tag 1"), 1)))[0].Seq
		content := f.mustSend("carol", f.next("carol", g, wire.KindContent, dirWrapCT(id("carol tag 1"), 1)))[0].Seq
		w2 := f.mustSend("carol", f.next("carol", g, wire.KindRecoveryWrap, dirWrapCT(id("carol tag 2"), 2)))[0].Seq
		put := func(as wire.AuthOK, items ...wire.DirPut) error { return f.svc.RecoveryDirPut(f.ctx, f.ws, as, items) }
		read := func(as wire.AuthOK, owner wire.ID) (*wire.RecoveryDir, error) {
			return f.svc.RecoveryDir(f.ctx, f.ws, as, owner)
		}
		if err := put(principal("carol"), wire.DirPut{Owner: carol, Group: g, Seq: w1}); err != nil {
			t.Fatalf("carol's own put: %v", err)
		}
		if err := put(principal("carol"), wire.DirPut{Owner: carol, Group: g, Seq: w2}); err != nil {
			t.Fatalf("carol's second put: %v", err)
		}
		dir, err := read(recoveryConn(f.carolRec), carol)
		if err != nil || len(dir.Slots) != 1 {
			t.Fatalf("carol's phrase reads: %+v %v", dir, err)
		}
		want := wire.DirSlot{Group: g, Current: wire.DirEntry{Seq: w2, Epoch: 2, Tag: id("carol tag 2"), Present: true},
			Fallback: wire.DirEntry{Seq: w1, Epoch: 1, Tag: id("carol tag 1"), Present: true}}
		if dir.Slots[0] != want {
			t.Fatalf("slot %+v, want %+v", dir.Slots[0], want)
		}
		if d, err := read(principal("carol"), carol); err != nil || len(d.Slots) != 1 {
			t.Fatalf("carol's device reads: %+v %v", d, err)
		}
		before := f.fixture.state()
		// Overwriting carol's slot.
		f.refused(wire.CodeDirNotOwner, func() error { return put(principal("alice"), wire.DirPut{Owner: carol, Group: g, Seq: aw}) })
		f.refused(wire.CodeDirNotOwner, func() error { return put(principal("dave"), wire.DirPut{Owner: carol, Group: g, Seq: w1}) })
		f.refused(wire.CodeDirNotOwner, func() error { return put(principal("agent"), wire.DirPut{Owner: carol, Group: g, Seq: w1}) })
		f.refused(wire.CodeDirNotOwner, func() error { return put(recoveryConn(f.carolRec), wire.DirPut{Owner: carol, Group: g, Seq: w1}) })
		f.refused(wire.CodeBadObject, func() error { return put(principal("carol"), wire.DirPut{Owner: carol, Group: g, Seq: aw}) })
		f.refused(wire.CodeBadObject, func() error { return put(principal("carol"), wire.DirPut{Owner: carol, Group: g, Seq: content}) })
		f.refused(wire.CodeBadObject, func() error { return put(principal("carol"), wire.DirPut{Owner: carol, Group: g, Seq: w2 + 5}) })
		f.refused(wire.CodeBadObject, func() error { return put(principal("carol"), wire.DirPut{Owner: carol, Group: g, Seq: 0}) })
		f.refused(wire.CodeUnknownGroup, func() error { return put(principal("carol"), wire.DirPut{Owner: carol, Group: id("nowhere"), Seq: w1}) })
		// All or none: a good item beside a bad one is not written.
		f.refused(wire.CodeDirNotOwner, func() error {
			return put(principal("carol"), wire.DirPut{Owner: carol, Group: g, Seq: w1}, wire.DirPut{Owner: alice, Group: g, Seq: aw})
		})
		// Reading carol's slot.
		for _, as := range []wire.AuthOK{principal("alice"), principal("dave"), recoveryConn(f.aliceRec), principal("agent")} {
			f.refused(wire.CodeDirNotOwner, func() error { _, err := read(as, carol); return err })
		}
		// Dropping it.
		drop := func(d wire.RecoveryDirDrop) (*wire.RecoveryDirDropped, error) {
			return f.svc.RecoveryDirDrop(f.ctx, f.ws, principal("alice"), d)
		}
		f.refused(wire.CodeDirNotAllowed, func() error { _, err := drop(f.dirDrop("dave", carol)); return err })
		forged := f.dirDrop("alice", carol, g)
		forged.Groups = nil
		f.refused(wire.CodeAuthBadSignature, func() error { _, err := drop(forged); return err })
		elsewhere := f.dirDrop("alice", carol)
		elsewhere.Workspace = id("another workspace")
		elsewhere.Sign(key("alice"))
		f.refused(wire.CodeWrongWorkspace, func() error { _, err := drop(elsewhere); return err })
		if f.fixture.state() != before {
			t.Fatal("a refused request changed the relay's state")
		}
		if d, _ := read(principal("carol"), carol); len(d.Slots) != 1 || d.Slots[0] != want {
			t.Fatalf("carol's slot moved: %+v", d)
		}
		// Carol is removed: revoked in the roster, the access set not yet
		// republished.
		f.append("alice", f.sign("alice", &roster.Revoke{RevokedAt: f.clock.now(),
			Targets: []identity.Principal{identity.DevicePrincipal(identity.DeviceIDOf(devKey(t, "carol").Public()))}}))
		f.refused(wire.CodeDirNotOwner, func() error { return put(principal("carol"), wire.DirPut{Owner: carol, Group: g, Seq: w1}) })
		f.refused(wire.CodeDirNotOwner, func() error { _, err := read(principal("carol"), carol); return err })
		f.refused(wire.CodeDirNotAllowed, func() error { _, err := drop(f.dirDrop("carol", carol)); return err })
		d := f.dirDrop("alice", carol)
		res, err := drop(d)
		if err != nil || res.Slots != 1 {
			t.Fatalf("alice's drop: %+v %v", res, err)
		}
		if d2, err := read(recoveryConn(f.carolRec), carol); err != nil || len(d2.Slots) != 0 {
			t.Fatalf("after the drop: %+v %v", d2, err)
		}
		var kept []byte
		if err := st.View(f.ctx, func(tx store.Tx) (err error) { kept, err = tx.RecoveryDirDrop(f.ctx, f.ws, d.Hash()); return }); err != nil ||
			string(kept) != string(d.Encode()) {
			t.Fatalf("the drop is not kept: %v", err)
		}
		if res, err := drop(d); err != nil || res.Slots != 0 {
			t.Fatalf("again: %+v %v", res, err)
		}
	})
}

// A person's own device drops their own directory (after a phrase
// rotation, the old phrase's), and the slots per owner are bounded.
func TestRecoveryDirOwnDropAndLimit(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newDirFixture(t, st)
		carol := ownerOf(f.carolRec)
		var items []wire.DirPut
		var envs []wire.Envelope
		for i := 0; i <= wire.MaxDirSlots; i++ {
			envs = append(envs, f.next("carol", id(fmt.Sprint("limit group ", i)), wire.KindRecoveryWrap, dirWrapCT(id("t"), 1)))
			if len(envs) == 256 || i == wire.MaxDirSlots {
				for k, a := range f.mustSend("carol", envs...) {
					items = append(items, wire.DirPut{Owner: carol, Group: envs[k].Group, Seq: a.Seq})
				}
				envs = envs[:0]
			}
		}
		for i := 0; i < wire.MaxDirSlots; i += wire.MaxDirPuts {
			if err := f.svc.RecoveryDirPut(f.ctx, f.ws, principal("carol"), items[i:i+wire.MaxDirPuts]); err != nil {
				t.Fatal(err)
			}
		}
		f.refused(wire.CodeDirLimit, func() error {
			return f.svc.RecoveryDirPut(f.ctx, f.ws, principal("carol"), items[wire.MaxDirSlots:])
		})
		// Putting into a slot it has is no new slot.
		if err := f.svc.RecoveryDirPut(f.ctx, f.ws, principal("carol"), items[:1]); err != nil {
			t.Fatal(err)
		}
		res, err := f.svc.RecoveryDirDrop(f.ctx, f.ws, principal("carol"), f.dirDrop("carol", carol))
		if err != nil || res.Slots != wire.MaxDirSlots {
			t.Fatalf("own drop: %+v %v", res, err)
		}
	})
}
