package retention

import (
	"errors"
	"slices"
	"testing"

	"weald/backend/wire"
)

func TestChainFollowsTheRelaysRules(t *testing.T) {
	dev := key(9)
	k1, k2, k3 := key(1), key(2), key(3)
	var c Chain
	root := Root(testGroup, 1, k1, dev)
	if err := c.Add(&root, Pub(key(8))); !errors.Is(err, ErrBadTransition) {
		t.Fatalf("a root signed by another device than its author: %v", err)
	}
	if err := c.Add(&root, Pub(dev)); err != nil {
		t.Fatal(err)
	}
	if err := c.Add(&root, Pub(dev)); err != nil {
		t.Fatalf("the same root again is a no-op: %v", err)
	}
	back := Successor(testGroup, 1, k1, k2)
	if err := c.Add(&back, nil); !errors.Is(err, ErrBadTransition) {
		t.Fatalf("a successor of the same epoch: %v", err)
	}
	orphan := Successor(testGroup, 5, k3, k2)
	if err := c.Add(&orphan, nil); !errors.Is(err, ErrBadTransition) {
		t.Fatalf("a successor of an unknown key: %v", err)
	}
	next := Successor(testGroup, 4, k1, k2)
	if err := c.Add(&next, nil); err != nil {
		t.Fatal(err)
	}
	if h := c.Head(); h == nil || string(h.Key) != string(Pub(k2)) || c.IsTip(Pub(k1)) {
		t.Fatal("the successor is not the head")
	}
	forged := next
	forged.Signature = append([]byte(nil), next.Signature...)
	forged.Signature[0] ^= 1
	if err := c.Add(&forged, nil); !errors.Is(err, ErrBadTransition) {
		t.Fatal("a bad signature was accepted")
	}
	// A second successor of k1 is evidence: the chain freezes.
	fork := Successor(testGroup, 5, k1, k3)
	if err := c.Add(&fork, nil); err != nil {
		t.Fatal(err)
	}
	if !c.Frozen || c.Head() != nil {
		t.Fatal("a fork did not freeze the chain")
	}
	if err := c.Resolve(Pub(k3)); err != nil {
		t.Fatal(err)
	}
	if c.Frozen || c.Has(Pub(k2)) || string(c.Head().Key) != string(Pub(k3)) {
		t.Fatal("the resolution did not keep exactly k3's line")
	}
}

// A member contests a head only when it proves the line fabricated: the
// key after the newest one it derives claims an epoch for which it derives
// another key, or one the group has not reached. From the attacker's side:
// a key made up at an epoch the member held, or at a future epoch, is
// contested (and the member's successor freezes the chain); an honest
// member never contests a key it derives, nor one of an epoch it did not
// hold (a member who joined since).
func TestContestOnlyAProvenFabrication(t *testing.T) {
	dev, made := key(9), key(66)
	epochKey := func(e uint64) []byte { return Pub(key(byte(e))) }
	derive := func(epochs ...uint64) func(uint64) ([]byte, bool) {
		return func(e uint64) ([]byte, bool) {
			if slices.Contains(epochs, e) {
				return epochKey(e), true
			}
			return nil, false
		}
	}
	chain := func(ts ...wire.RetentionTransition) *Chain {
		c := &Chain{}
		for i := range ts {
			if err := c.Add(&ts[i], Pub(dev)); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	root := Root(testGroup, 1, key(1), dev)
	honest := chain(root, Successor(testGroup, 3, key(1), key(3)))
	forgedAt := func(e uint64) *Chain { return chain(root, Successor(testGroup, e, key(1), made)) }
	forgedRoot := Root(testGroup, 2, made, dev)
	cases := []struct {
		name    string
		c       *Chain
		derived func(uint64) ([]byte, bool)
		current uint64
		ok      bool
		anchor  []byte
	}{
		{"an honest successor, derived", honest, derive(1, 2, 3, 4), 4, false, nil},
		{"an honest successor, its epoch not held (joined since)", honest, derive(4, 5), 5, false, nil},
		{"an honest successor, root not held, its epoch not held", honest, derive(2, 4), 4, false, nil},
		{"made up at an epoch held", forgedAt(3), derive(1, 2, 3, 4), 4, true, Pub(key(1))},
		{"made up at an epoch held, the key before it not held (the root is not contested)", forgedAt(3), derive(3, 4), 4, false, nil},
		{"made up at an epoch not reached", forgedAt(1 << 40), derive(1, 4), 4, true, Pub(key(1))},
		{"made up at an epoch not held, before now", forgedAt(3), derive(1, 4), 4, false, nil},
		{"made up, but no epoch since the anchor", forgedAt(3), derive(1), 1, false, nil},
		{"made up, current key not held", forgedAt(3), derive(1, 3), 4, false, nil},
		{"a made-up root at an epoch held", chain(forgedRoot), derive(2, 4), 4, true, nil},
		{"a made-up root at an epoch not held", chain(forgedRoot), derive(4), 4, false, nil},
	}
	for _, tc := range cases {
		anchor, ok := tc.c.Contest(tc.derived, tc.current)
		if ok != tc.ok {
			t.Fatalf("%s: contest %v, want %v", tc.name, ok, tc.ok)
		}
		if ok && (anchor == nil) != (tc.anchor == nil) || anchor != nil && string(anchor.Key) != string(tc.anchor) {
			t.Fatalf("%s: anchor %+v", tc.name, anchor)
		}
	}

	// The contest freezes the chain, and then nothing more is contested.
	c := forgedAt(3)
	anchor, _ := c.Contest(derive(1, 3, 4), 4)
	if anchor == nil {
		t.Fatal("no anchor")
	}
	tr := Successor(testGroup, 4, key(1), key(4))
	if err := c.Add(&tr, nil); err != nil || !c.Frozen {
		t.Fatalf("the contest did not freeze the chain: %v", err)
	}
	if _, ok := c.Contest(derive(1, 3, 4), 4); ok {
		t.Fatal("a frozen chain was contested again")
	}
	if err := c.Resolve(Pub(key(4))); err != nil || c.Has(Pub(made)) {
		t.Fatalf("the resolution kept the made-up key: %v", err)
	}
	if _, ok := c.Contest(derive(1, 3, 4), 4); ok {
		t.Fatal("the resolved chain was contested")
	}
}
