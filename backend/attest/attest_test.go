package attest

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

func sample() *Attestation {
	return &Attestation{Workspace: [32]byte{1}, Time: time.UnixMilli(1_700_000_000_123).UTC(), RosterLength: 9,
		RosterHead: [32]byte{2}, Groups: []GroupHead{{Group: [32]byte{3}, Seq: 40, Hash: [32]byte{4}}, {Group: [32]byte{5}, Seq: 7}}}
}

func TestRoundTripAndRefusals(t *testing.T) {
	a := sample()
	b := a.Encode()
	got, err := Decode(b)
	if err != nil || !reflect.DeepEqual(got, a) {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	bad := [][]byte{nil, b[:len(b)-1], append(append([]byte{}, b...), 0), append([]byte{2}, b[1:]...)}
	for i, x := range bad {
		if _, err := Decode(x); !errors.Is(err, ErrMalformed) {
			t.Errorf("case %d: %v", i, err)
		}
	}
}

func TestCompare(t *testing.T) {
	a := sample()
	heads := func(n uint64) ([32]byte, bool) { return [32]byte{2}, n == 9 }
	honest := Mine{RosterLength: 9, RosterHeadAt: heads, Groups: map[[32]byte]Processed{
		{3}: {Seq: 41, Recent: map[uint64][32]byte{40: {4}, 41: {6}}}, {5}: {Seq: 7}}}
	if d := Compare(a, honest); len(d) != 0 {
		t.Fatalf("honest view: %+v", d)
	}
	behind := honest
	behind.Groups = map[[32]byte]Processed{{3}: {Seq: 38}}
	if d := Compare(a, behind); len(d) != 1 || !d[0].Behind || *d[0].Group != [32]byte{3} || d[0].Theirs != 40 || d[0].Mine != 38 {
		t.Fatalf("withheld tail: %+v", d)
	}
	forked := honest
	forked.Groups = map[[32]byte]Processed{{3}: {Seq: 40, Recent: map[uint64][32]byte{40: {9}}}}
	if d := Compare(a, forked); len(d) != 1 || d[0].Behind {
		t.Fatalf("forked group: %+v", d)
	}
	rosterFork := Mine{RosterLength: 12, RosterHeadAt: func(uint64) ([32]byte, bool) { return [32]byte{7}, true }}
	if d := Compare(a, rosterFork); len(d) != 1 || d[0].Group != nil || d[0].Behind {
		t.Fatalf("forked roster: %+v", d)
	}
	if d := Compare(a, Mine{RosterLength: 3}); len(d) != 1 || !d[0].Behind || d[0].Group != nil {
		t.Fatalf("roster behind: %+v", d)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(sample().Encode())
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := Decode(b)
		if err != nil {
			return
		}
		again, err := Decode(a.Encode())
		if err != nil || !reflect.DeepEqual(again, a) {
			t.Fatalf("re-encoding does not decode to the same: %v", err)
		}
	})
}
