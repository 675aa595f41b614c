package tree

import "slices"

// Copy-on-write chunked arrays. A Tree's per-node arrays are split into
// chunks of cowSize elements; Clone copies only the chunk headers and marks
// every chunk shared, and the first write to a shared chunk copies that chunk
// alone. A commit touches about log2(n) chunks, so staging a commit on a
// clone costs O(n/cowSize + log n · cowSize) instead of O(n).
//
// Clone marks chunks shared in the original too, so Clone is a write: a
// Tree is not safe for concurrent use (concurrent reads are fine).
const (
	cowBits = 8
	cowSize = 1 << cowBits
	cowMask = cowSize - 1
)

// cowSlice is a copy-on-write array of n elements of T.
type cowSlice[T any] struct {
	chunks [][]T
	shared []bool
	n      int
}

func newCowSlice[T any](n int) cowSlice[T] {
	var c cowSlice[T]
	c.resize(n)
	return c
}

func (c *cowSlice[T]) len() int { return c.n }

func (c *cowSlice[T]) at(i int) T { return c.chunks[i>>cowBits][i&cowMask] }

func (c *cowSlice[T]) set(i int, v T) {
	k := i >> cowBits
	if c.shared[k] {
		c.chunks[k] = slices.Clone(c.chunks[k])
		c.shared[k] = false
	}
	c.chunks[k][i&cowMask] = v
}

func (c *cowSlice[T]) clone() cowSlice[T] {
	for k := range c.shared {
		c.shared[k] = true
	}
	return cowSlice[T]{chunks: slices.Clone(c.chunks), shared: slices.Clone(c.shared), n: c.n}
}

// resize grows the array with zero values or shrinks it to n elements.
func (c *cowSlice[T]) resize(n int) {
	nc := (n + cowMask) >> cowBits
	if n < c.n {
		c.chunks, c.shared = c.chunks[:nc:nc], c.shared[:nc:nc]
		// Zero the tail of the last chunk so that a later grow sees zeros.
		if n&cowMask != 0 && nc > 0 {
			var zero T
			for i := n; i < min(c.n, nc<<cowBits); i++ {
				c.set(i, zero)
			}
		}
		c.n = n
		return
	}
	for len(c.chunks) < nc {
		c.chunks = append(c.chunks, make([]T, cowSize))
		c.shared = append(c.shared, false)
	}
	c.n = n
}

// each calls f for elements [from, to) in order, chunk by chunk.
func (c *cowSlice[T]) each(from, to int, f func(i int, v T) bool) {
	for i := from; i < to; {
		ch := c.chunks[i>>cowBits]
		end := min(to, (i|cowMask)+1)
		for j := i; j < end; j++ {
			if !f(j, ch[j&cowMask]) {
				return
			}
		}
		i = end
	}
}

// cowBytes is a copy-on-write array of n fixed-size byte records.
type cowBytes struct {
	rec    int
	chunks [][]byte
	shared []bool
	n      int
}

func (c *cowBytes) at(i int) []byte {
	off := (i & cowMask) * c.rec
	return c.chunks[i>>cowBits][off : off+c.rec : off+c.rec]
}

func (c *cowBytes) set(i int, b []byte) []byte {
	k := i >> cowBits
	if c.shared[k] {
		c.chunks[k] = slices.Clone(c.chunks[k])
		c.shared[k] = false
	}
	off := (i & cowMask) * c.rec
	slot := c.chunks[k][off : off+c.rec : off+c.rec]
	copy(slot, b)
	return slot
}

func (c *cowBytes) clone() cowBytes {
	for k := range c.shared {
		c.shared[k] = true
	}
	return cowBytes{rec: c.rec, chunks: slices.Clone(c.chunks), shared: slices.Clone(c.shared), n: c.n}
}

func (c *cowBytes) resize(n int) {
	nc := (n + cowMask) >> cowBits
	if n < c.n {
		c.chunks, c.shared = c.chunks[:nc:nc], c.shared[:nc:nc]
		c.n = n
		return
	}
	for len(c.chunks) < nc {
		c.chunks = append(c.chunks, make([]byte, cowSize*c.rec))
		c.shared = append(c.shared, false)
	}
	c.n = n
}
