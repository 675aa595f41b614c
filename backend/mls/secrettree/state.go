package secrettree

import (
	"sort"

	"weald/backend/errcode"
	"weald/backend/internal/codec"
	"weald/backend/mls/suite"
	"weald/backend/mls/treemath"
)

// ErrBadState is returned by [Decode] for an encoding that is not a
// valid secret tree state.
var ErrBadState = errcode.New("mls/secrettree/bad_state", "the stored secret tree state is invalid")

// Encode appends the tree's state (secrets still held, ratchet positions,
// kept skipped keys) to w, for persistence. The encoding is:
//
//	struct {
//	  uint16 cipher_suite; uint32 n_leaves; uint32 max_forward; uint32 max_skipped;
//	  struct { uint32 node; opaque secret<V>; } nodes<V>;          // ascending node
//	  struct { uint32 leaf; Ratchet handshake; Ratchet application; } leaves<V>; // ascending leaf
//	} SecretTreeState;
//	struct {
//	  uint32 next; optional<opaque secret<V>>;
//	  struct { uint32 generation; opaque key<V>; opaque nonce<V>; } skipped<V>; // ascending
//	} Ratchet;
func (t *Tree) Encode(w *codec.Writer) {
	w.U16(uint16(t.suite.ID()))
	w.U32(t.nLeaves)
	w.U32(t.cfg.MaxForward)
	w.U32(uint32(t.cfg.MaxSkipped))
	nodes := make([]treemath.NodeIndex, 0, len(t.nodes))
	for n := range t.nodes {
		nodes = append(nodes, n)
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i] < nodes[j] })
	w.Vector(func(w *codec.Writer) {
		for _, n := range nodes {
			w.U32(uint32(n))
			w.Opaque(t.nodes[n])
		}
	})
	leaves := make([]treemath.LeafIndex, 0, len(t.leaves))
	for l := range t.leaves {
		leaves = append(leaves, l)
	}
	sort.Slice(leaves, func(i, j int) bool { return leaves[i] < leaves[j] })
	w.Vector(func(w *codec.Writer) {
		for _, l := range leaves {
			w.U32(uint32(l))
			for _, r := range t.leaves[l].ratchets {
				w.U32(r.next)
				w.Optional(r.secret != nil, func(w *codec.Writer) { w.Opaque(r.secret) })
				w.Vector(func(w *codec.Writer) {
					for _, g := range skippedGenerations(r) {
						kn := r.skipped[g]
						w.U32(g)
						w.Opaque(kn.Key)
						w.Opaque(kn.Nonce)
					}
				})
			}
		}
	})
}

// Decode reads a state written by [Tree.Encode]. It checks sizes and
// ranges and returns ErrBadState (or a codec error) on any inconsistency.
func Decode(r *codec.Reader) (*Tree, error) {
	id := suite.ID(r.U16())
	n := r.U32()
	maxF := r.U32()
	maxS := r.U32()
	if r.Err() != nil {
		return nil, r.Err()
	}
	s, err := suite.ByID(id)
	if err != nil {
		return nil, err
	}
	if n == 0 || n&(n-1) != 0 || n > 1<<30 || maxS > 1<<20 || maxF > 1<<20 {
		return nil, ErrBadState
	}
	t := &Tree{suite: s, nLeaves: n, cfg: Config{MaxForward: maxF, MaxSkipped: int(maxS)}.withDefaults(),
		nodes: map[treemath.NodeIndex][]byte{}, leaves: map[treemath.LeafIndex]*leafState{}}
	width := treemath.Width(n)
	r.Vector(func(r *codec.Reader) {
		node := treemath.NodeIndex(r.U32())
		sec := r.OpaqueCopy()
		if r.Err() != nil {
			return
		}
		if uint32(node) >= width || len(sec) != s.Nh() {
			r.Fail(ErrBadState)
			return
		}
		if _, dup := t.nodes[node]; dup {
			r.Fail(ErrBadState)
			return
		}
		t.nodes[node] = sec
	})
	r.Vector(func(r *codec.Reader) {
		leaf := treemath.LeafIndex(r.U32())
		if r.Err() != nil {
			return
		}
		if uint32(leaf) >= n {
			r.Fail(ErrBadState)
			return
		}
		if _, dup := t.leaves[leaf]; dup {
			r.Fail(ErrBadState)
			return
		}
		ls := &leafState{}
		for i := range ls.ratchets {
			rt := &ratchet{next: r.U32()}
			if r.Optional() {
				rt.secret = r.OpaqueCopy()
				if r.Err() == nil && len(rt.secret) != s.Nh() {
					r.Fail(ErrBadState)
				}
			}
			r.Vector(func(r *codec.Reader) {
				kn := KeyNonce{Generation: r.U32(), Key: r.OpaqueCopy(), Nonce: r.OpaqueCopy()}
				if r.Err() != nil {
					return
				}
				if len(kn.Key) != s.Nk() || len(kn.Nonce) != s.Nn() || len(rt.skipped) >= t.cfg.MaxSkipped {
					r.Fail(ErrBadState)
					return
				}
				if rt.skipped == nil {
					rt.skipped = map[uint32]KeyNonce{}
				}
				rt.skipped[kn.Generation] = kn
			})
			ls.ratchets[i] = rt
		}
		t.leaves[leaf] = ls
	})
	if r.Err() != nil {
		return nil, r.Err()
	}
	return t, nil
}
