package wire

import (
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

// TestCheckTombstone: a tombstone counts only with an instruction of the
// answer for this workspace and group, signed, that names its tag.
func TestCheckTombstone(t *testing.T) {
	ws, g, tag := ID{1}, ID{2}, ID{3}
	k := ed25519.NewKeyFromSeed(make([]byte, 32))
	good := WrapsDelete{Workspace: ws, Group: g, Tags: []ID{tag}}
	good.Sign(k)
	forged := good
	forged.Tags = []ID{tag, {4}}
	other := WrapsDelete{Workspace: ID{9}, Group: g, Tags: []ID{tag}}
	other.Sign(k)
	e := &Envelopes{Group: g, Deletions: []WrapsDelete{good, forged, other}}
	for i, c := range []struct {
		ts   Tombstone
		want bool
	}{
		{Tombstone{Seq: 1, Tag: tag, Deletion: 0}, true},
		{Tombstone{Seq: 1, Tag: ID{4}, Deletion: 0}, false}, // a tag it does not name
		{Tombstone{Seq: 1, Tag: tag, Deletion: 1}, false},   // a signature that does not verify
		{Tombstone{Seq: 1, Tag: tag, Deletion: 2}, false},   // another workspace
		{Tombstone{Seq: 1, Tag: tag, Deletion: 3}, false},   // no such instruction
	} {
		if _, ok := e.CheckTombstone(ws, c.ts); ok != c.want {
			t.Errorf("case %d: %v, want %v", i, ok, c.want)
		}
	}
}
