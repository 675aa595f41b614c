package wire

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"testing"
)

// TestAccount: the accounted range of a FETCH answer ends before the first
// seq that is neither an envelope, below the barrier, nor deleted.
func TestAccount(t *testing.T) {
	ans := func(through uint64, seqs ...uint64) *Envelopes {
		e := &Envelopes{Through: through}
		for _, s := range seqs {
			e.Envelopes = append(e.Envelopes, SeqEnvelope{Seq: s})
		}
		return e
	}
	cases := []struct {
		e       *Envelopes
		after   uint64
		barrier uint64
		deleted map[uint64]bool
		want    string
	}{
		{ans(3, 1, 2, 3), 0, 0, nil, "3 ok"},
		{ans(3, 1, 3), 0, 0, nil, "1 gap 2-2"},                      // a withheld envelope
		{ans(5, 1, 2), 0, 0, nil, "2 gap 3-5"},                      // a withheld tail
		{ans(5), 2, 0, nil, "2 gap 3-5"},                            // an empty page short of the head
		{ans(3, 1, 3), 0, 0, map[uint64]bool{2: true}, "3 ok"},      // a deleted wrap
		{ans(9, 6, 9), 0, 6, map[uint64]bool{7: true}, "7 gap 8-8"}, // dropped below 6, 7 deleted, 8 withheld
		{ans(9, 6, 7, 8, 9), 0, 6, nil, "9 ok"},
		{ans(4, 1, 3, 2, 4), 0, 0, map[uint64]bool{2: true}, "3 ok"}, // out of order: stop before it
		{ans(2, 5), 4, 0, nil, "5 ok"},                               // through below the last envelope
		{ans(1<<64-1, 1<<64-1), 1<<64 - 2, 0, nil, fmt.Sprint(uint64(1<<64-2)) + " ok"},
	}
	for i, c := range cases {
		upto, gap, ok := c.e.Account(c.after, c.barrier, c.deleted)
		got := fmt.Sprintf("%d ok", upto)
		if !ok {
			got = fmt.Sprintf("%d gap %d-%d", upto, gap.From, gap.To)
		}
		if got != c.want {
			t.Errorf("case %d: %s, want %s", i, got, c.want)
		}
	}
}

// TestDeletedSeqs: a tombstone counts only with an instruction of the
// answer for this workspace and group, signed by a signer the caller
// accepts, that names its tag.
func TestDeletedSeqs(t *testing.T) {
	ws, g, tag := ID{1}, ID{2}, ID{3}
	k, stranger := ed25519.NewKeyFromSeed(make([]byte, 32)), ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32))
	sign := func(d WrapsDelete, key ed25519.PrivateKey) WrapsDelete { d.Sign(key); return d }
	good := sign(WrapsDelete{Workspace: ws, Group: g, Tags: []ID{tag}}, k)
	forged := good
	forged.Tags = []ID{tag, {4}}
	e := &Envelopes{Group: g, Deletions: []WrapsDelete{good, forged,
		sign(WrapsDelete{Workspace: ID{9}, Group: g, Tags: []ID{tag}}, k),      // another workspace
		sign(WrapsDelete{Workspace: ws, Group: ID{9}, Tags: []ID{tag}}, k),     // another group
		sign(WrapsDelete{Workspace: ws, Group: g, Tags: []ID{tag}}, stranger)}, // a signer not accepted
		Deleted: []Tombstone{
			{Seq: 1, Tag: tag, Deletion: 0},   // counts
			{Seq: 2, Tag: ID{4}, Deletion: 0}, // a tag it does not name
			{Seq: 3, Tag: tag, Deletion: 1},   // a signature that does not verify
			{Seq: 4, Tag: tag, Deletion: 2},
			{Seq: 5, Tag: tag, Deletion: 3},
			{Seq: 6, Tag: tag, Deletion: 4},
			{Seq: 7, Tag: tag, Deletion: 5}, // no such instruction
			{Seq: 8, Tag: tag, Deletion: 0}, // counts
		}}
	accept := func(key []byte) bool { return bytes.Equal(key, k.Public().(ed25519.PublicKey)) }
	if got := fmt.Sprint(e.DeletedSeqs(ws, 0, accept)); got != "map[1:true 8:true]" {
		t.Errorf("deleted seqs %s, want 1 and 8", got)
	}
	if got := fmt.Sprint(e.DeletedSeqs(ws, 1, accept)); got != "map[8:true]" {
		t.Errorf("after seq 1: %s, want 8", got)
	}
}

// FuzzAccount: whatever a relay answers, Account never panics, never
// accounts below after_seq or past a gap, and a gap it reports is a run of
// seqs no envelope, barrier or deletion covers.
func FuzzAccount(f *testing.F) {
	f.Add(uint64(0), uint64(3), uint64(0), []byte{1, 3}, []byte{2})
	f.Add(uint64(4), uint64(9), uint64(6), []byte{6, 9}, []byte{7})
	f.Add(uint64(1<<64-2), uint64(1<<64-1), uint64(0), []byte{255}, []byte{})
	f.Fuzz(func(t *testing.T, after, through, barrier uint64, seqs, dels []byte) {
		e := &Envelopes{Through: through}
		for _, s := range seqs {
			e.Envelopes = append(e.Envelopes, SeqEnvelope{Seq: after + uint64(s)})
		}
		deleted := map[uint64]bool{}
		for _, d := range dels {
			deleted[after+uint64(d)] = true
		}
		upto, gap, ok := e.Account(after, barrier, deleted)
		if upto < after {
			t.Fatalf("accounted up to %d, below after %d", upto, after)
		}
		if ok {
			return
		}
		if gap.From != upto+1 || gap.To < gap.From || gap.From < barrier || deleted[gap.From] {
			t.Fatalf("gap %+v after upto %d (barrier %d)", gap, upto, barrier)
		}
		last := after
		for _, se := range e.Envelopes { // the ascending prefix: Account stops at the first out of order
			if se.Seq <= last {
				break
			}
			last = se.Seq
			if se.Seq >= gap.From && se.Seq <= gap.To {
				t.Fatalf("gap %+v covers envelope %d", gap, se.Seq)
			}
		}
	})
}
