package retention

import (
	"errors"
	"testing"
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
