package tree

import (
	"bytes"
	"testing"
)

func TestCowSlice(t *testing.T) {
	const n = 3*cowSize + 17
	a := newCowSlice[int](n)
	for i := 0; i < n; i++ {
		a.set(i, i)
	}
	b := a.clone()
	b.set(5, -5)
	a.set(cowSize+1, -1)
	if a.at(5) != 5 || b.at(5) != -5 || b.at(cowSize+1) != cowSize+1 || a.at(cowSize+1) != -1 {
		t.Fatal("clones are not independent")
	}
	c := b.clone()
	c.resize(cowSize + 3) // shrink into the second chunk
	c.resize(n)           // and grow back: the tail reads as zero
	for i := 0; i < n; i++ {
		want := 0
		if i < cowSize+3 {
			want = b.at(i)
		}
		if c.at(i) != want {
			t.Fatalf("after shrink and grow, c[%d] = %d, want %d", i, c.at(i), want)
		}
	}
	if b.at(cowSize+5) != cowSize+5 {
		t.Fatal("shrinking a clone changed the original")
	}
	sum := 0
	b.each(cowSize-2, cowSize+2, func(i, v int) bool { sum += v; return true })
	if sum != (cowSize-2)+(cowSize-1)+cowSize+(cowSize+1) {
		t.Fatalf("each across a chunk boundary: %d", sum)
	}
	stops := 0
	b.each(0, n, func(i, v int) bool { stops++; return i < 3 })
	if stops != 4 {
		t.Fatalf("each did not stop: %d", stops)
	}

	var h hashCache = newHashCache(n)
	h.put(3, bytes.Repeat([]byte{1}, 32))
	h2 := h.clone()
	h2.put(3, bytes.Repeat([]byte{2}, 32))
	if h.get(3)[0] != 1 || h2.get(3)[0] != 2 {
		t.Fatal("hash cache clones are not independent")
	}
	if !h2.drop(3) || h2.get(3) != nil || h.get(3) == nil {
		t.Fatal("drop")
	}
}

// TestTreeCloneIndependent: changes to a clone and to its original do not
// leak into each other.
func TestTreeCloneIndependent(t *testing.T) {
	_, tr := simTree(t)
	before := tr.RatchetTreeBytes()
	hash := tr.TreeHash()
	c := tr.Clone()
	if err := c.RemoveLeaf(1); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tr.RatchetTreeBytes(), before) || !bytes.Equal(tr.TreeHash(), hash) {
		t.Fatal("removing from the clone changed the original")
	}
	if err := tr.RemoveLeaf(2); err != nil {
		t.Fatal(err)
	}
	if c.Leaf(2) == nil || c.Leaf(1) != nil || tr.Leaf(1) == nil {
		t.Fatal("trees share leaves")
	}
	checkKeyIndex(t, tr)
	checkKeyIndex(t, c)
	fresh, err := DecodeRatchetTree(tr.suite, c.RatchetTreeBytes())
	if err != nil || !bytes.Equal(fresh.TreeHash(), c.TreeHash()) {
		t.Fatalf("clone's cached hash differs from a fresh one: %v", err)
	}
}
