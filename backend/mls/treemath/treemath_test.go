package treemath

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// readVector reads an RFC 9420 vector file: name in $WEALD_MLS_VECTORS, or
// name.json.gz in backend/mls/testdata/rfc9420 of the module. (treemath has
// no dependencies, so it does not use backend/mls/internal/mlstest.)
func readVector(t *testing.T, name string) []byte {
	t.Helper()
	if dir := os.Getenv("WEALD_MLS_VECTORS"); dir != "" {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 16; i++ {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			f, err := os.Open(filepath.Join(dir, "backend", "mls", "testdata", "rfc9420", name+".gz"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			z, err := gzip.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(z)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		dir = filepath.Dir(dir)
	}
	t.Fatal("module root not found")
	return nil
}

type treeMathCase struct {
	NLeaves uint32    `json:"n_leaves"`
	NNodes  uint32    `json:"n_nodes"`
	Root    uint32    `json:"root"`
	Left    []*uint32 `json:"left"`
	Right   []*uint32 `json:"right"`
	Parent  []*uint32 `json:"parent"`
	Sibling []*uint32 `json:"sibling"`
}

func check(t *testing.T, what string, x uint32, got NodeIndex, ok bool, want *uint32) {
	t.Helper()
	if want == nil {
		if ok {
			t.Errorf("%s(%d) = %d, want none", what, x, got)
		}
		return
	}
	if !ok || uint32(got) != *want {
		t.Errorf("%s(%d) = %d,%v, want %d", what, x, got, ok, *want)
	}
}

func TestTreeMathVectors(t *testing.T) {
	raw := readVector(t, "tree-math.json")
	var cases []treeMathCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, c := range cases {
		t.Run(fmt.Sprintf("n_leaves_%d", c.NLeaves), func(t *testing.T) {
			if got := Width(c.NLeaves); got != c.NNodes {
				t.Errorf("Width(%d) = %d, want %d", c.NLeaves, got, c.NNodes)
			}
			if got := Root(c.NLeaves); uint32(got) != c.Root {
				t.Errorf("Root(%d) = %d, want %d", c.NLeaves, got, c.Root)
			}
			for i := uint32(0); i < c.NNodes; i++ {
				x := NodeIndex(i)
				l, ok := Left(x)
				check(t, "Left", i, l, ok, c.Left[i])
				r, ok := Right(x)
				check(t, "Right", i, r, ok, c.Right[i])
				p, ok := Parent(x, c.NLeaves)
				check(t, "Parent", i, p, ok, c.Parent[i])
				s, ok := Sibling(x, c.NLeaves)
				check(t, "Sibling", i, s, ok, c.Sibling[i])
			}
			ran++
		})
	}
	if ran != len(cases) || ran == 0 {
		t.Fatalf("ran %d of %d cases", ran, len(cases))
	}
	t.Logf("tree-math.json: %d cases run, 0 n/a", ran)
}

// TestPathsAndAncestors checks DirectPath, Copath, CommonAncestor and
// IsInSubtree against their definitions built from Parent and Sibling.
func TestPathsAndAncestors(t *testing.T) {
	for _, n := range []uint32{1, 2, 4, 8, 16, 64} {
		w := Width(n)
		root := Root(n)
		for x := NodeIndex(0); uint32(x) < w; x++ {
			dp := DirectPath(nil, x, n)
			cp := Copath(nil, x, n)
			if len(dp) != len(cp) {
				t.Fatalf("n=%d x=%d: direct path %v, copath %v", n, x, dp, cp)
			}
			if x == root {
				if len(dp) != 0 {
					t.Fatalf("root has direct path %v", dp)
				}
				continue
			}
			if dp[len(dp)-1] != root {
				t.Fatalf("n=%d x=%d: direct path %v does not end at root", n, x, dp)
			}
			prev := x
			for i, p := range dp {
				if want, _ := Parent(prev, n); p != want {
					t.Fatalf("n=%d x=%d: dp[%d]=%d want %d", n, x, i, p, want)
				}
				if want, _ := Sibling(prev, n); cp[i] != want {
					t.Fatalf("n=%d x=%d: cp[%d]=%d want %d", n, x, i, cp[i], want)
				}
				if !IsInSubtree(p, x) || IsInSubtree(cp[i], x) {
					t.Fatalf("n=%d x=%d: subtree test wrong at %d", n, x, p)
				}
				prev = p
			}
			for y := NodeIndex(0); uint32(y) < w; y++ {
				got := CommonAncestor(x, y)
				// Semantic definition: lowest node whose subtree holds both.
				want := root
				chain := append([]NodeIndex{x}, dp...)
				for _, a := range chain {
					if IsInSubtree(a, y) {
						want = a
						break
					}
				}
				if got != want {
					t.Fatalf("n=%d CommonAncestor(%d,%d)=%d want %d", n, x, y, got, want)
				}
			}
		}
	}
	if _, ok := Parent(NodeIndex(Width(4)), 4); ok {
		t.Fatal("Parent outside the tree returned ok")
	}
	if l, ok := LeafIndex(3).Node().Leaf(); !ok || l != 3 {
		t.Fatal("leaf index round trip")
	}
	if _, ok := NodeIndex(3).Leaf(); ok {
		t.Fatal("parent node reported as a leaf")
	}
}
