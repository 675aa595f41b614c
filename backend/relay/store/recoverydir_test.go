package store

import (
	"testing"

	"weald/backend/wire"
)

// TestRecoveryDirSlots (SQLite and PostgreSQL): a put makes the named wrap
// the slot's current entry and the one it replaces the fallback; the same
// put again changes nothing; each entry says whether its wrap is still
// stored (a drop below it takes it); a drop deletes the named slots only
// (every one of the owner's with no group named), keeps the instruction,
// and touches no other owner.
func TestRecoveryDirSlots(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, open func() Store) {
		st := open()
		ctx := ctxT(t)
		ws, g1, g2 := tid("ws"), tid("g1"), tid("g2")
		alice, bob := tid("alice's recovery key"), tid("bob's recovery key")
		insert(t, st, ws, g1, 1, 3, 40) // seqs 1..3, content
		insert(t, st, ws, g2, 1, 1, 40)
		e := func(seq uint64, tag string) wire.DirEntry {
			return wire.DirEntry{Seq: seq, Epoch: seq + 10, Tag: tid(tag)}
		}
		put := func(owner, g wire.ID, en wire.DirEntry) bool {
			var added bool
			if err := st.Update(ctx, func(tx Tx) (err error) { added, err = tx.RecoveryDirPut(ctx, ws, owner, g, en); return }); err != nil {
				t.Fatal(err)
			}
			return added
		}
		dir := func(owner wire.ID) []wire.DirSlot {
			var out []wire.DirSlot
			if err := st.View(ctx, func(tx Tx) (err error) { out, err = tx.RecoveryDir(ctx, ws, owner); return }); err != nil {
				t.Fatal(err)
			}
			return out
		}
		if !put(alice, g1, e(1, "t1")) || put(alice, g1, e(1, "t1")) {
			t.Fatal("a first put adds the slot, the same one again does not")
		}
		put(alice, g1, e(2, "t2"))
		put(alice, g1, e(2, "t2"))
		put(alice, g2, e(1, "u1"))
		put(bob, g1, e(3, "b3"))
		got := dir(alice)
		if len(got) != 2 || got[0].Group != g1 || got[0].Current.Seq != 2 || got[0].Current.Tag != tid("t2") || got[0].Current.Epoch != 12 ||
			got[0].Fallback.Seq != 1 || got[0].Fallback.Tag != tid("t1") || got[1].Group != g2 || got[1].Fallback != (wire.DirEntry{}) {
			t.Fatalf("alice's directory: %+v", got)
		}
		// The seqs hold content, not wraps: nothing is present.
		if got[0].Valid() || got[1].Valid() {
			t.Fatalf("entries naming no stored wrap are present: %+v", got)
		}
		if err := st.Update(ctx, func(tx Tx) error {
			r := EnvelopeRow{Seq: 4, Hash: tid("wrap4"), AcceptedAt: 1,
				Envelope: wire.Envelope{Group: g1, Kind: wire.KindRecoveryWrap, Author: tid("author"), Ctr: 4, CT: make([]byte, 50)}}
			return tx.InsertEnvelope(ctx, ws, &r)
		}); err != nil {
			t.Fatal(err)
		}
		put(alice, g1, e(4, "t4"))
		got = dir(alice)
		if !got[0].Current.Present || got[0].Fallback.Present || got[0].Fallback.Seq != 2 || !got[0].Valid() {
			t.Fatalf("after the wrap at 4: %+v", got[0])
		}
		if n := countSlots(t, st, ws, alice); n != 2 {
			t.Fatalf("count %d", n)
		}
		drop := func(d *wire.RecoveryDirDrop) int64 {
			var n int64
			if err := st.Update(ctx, func(tx Tx) (err error) { n, err = tx.DropRecoveryDir(ctx, ws, d); return }); err != nil {
				t.Fatal(err)
			}
			return n
		}
		one := &wire.RecoveryDirDrop{Workspace: ws, Owner: alice, Groups: []wire.ID{g2, tid("nowhere")}}
		if n := drop(one); n != 1 || len(dir(alice)) != 1 {
			t.Fatalf("dropped %d, left %+v", n, dir(alice))
		}
		var kept []byte
		if err := st.View(ctx, func(tx Tx) (err error) { kept, err = tx.RecoveryDirDrop(ctx, ws, one.Hash()); return }); err != nil || string(kept) != string(one.Encode()) {
			t.Fatalf("kept drop: %x %v", kept, err)
		}
		if n := drop(&wire.RecoveryDirDrop{Workspace: ws, Owner: alice}); n != 1 || len(dir(alice)) != 0 || len(dir(bob)) != 1 {
			t.Fatalf("dropped %d; alice %+v, bob %+v", n, dir(alice), dir(bob))
		}
	})
}

func countSlots(t *testing.T, st Store, ws, owner wire.ID) int {
	t.Helper()
	ctx := ctxT(t)
	var n int
	if err := st.View(ctx, func(tx Tx) (err error) { n, err = tx.RecoveryDirCount(ctx, ws, owner); return }); err != nil {
		t.Fatal(err)
	}
	return n
}
