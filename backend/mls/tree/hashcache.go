package tree

import "slices"

// hashCache holds the tree hash of every node in one flat, pointer-free
// buffer, so cloning a tree copies it with a single memmove and the
// garbage collector never scans it. ok[x] says whether node x's hash is
// current. Invariant: if ok[x] is false, so is ok of every ancestor of x.
type hashCache struct {
	hlen int // hash length, known after the first hash is stored
	buf  []byte
	ok   []bool
}

func newHashCache(width uint32) hashCache { return hashCache{ok: make([]bool, width)} }

// get returns node x's cached hash (aliasing the cache; copy it before the
// tree changes) or nil.
func (c *hashCache) get(x uint32) []byte {
	if !c.ok[x] {
		return nil
	}
	return c.buf[int(x)*c.hlen : int(x+1)*c.hlen : int(x+1)*c.hlen]
}

// put stores h as node x's hash and returns the cached copy.
func (c *hashCache) put(x uint32, h []byte) []byte {
	if c.hlen == 0 {
		c.hlen = len(h)
		c.buf = make([]byte, len(c.ok)*c.hlen)
	}
	if len(h) != c.hlen {
		return h // cannot happen with one suite; do not cache
	}
	slot := c.buf[int(x)*c.hlen : int(x+1)*c.hlen : int(x+1)*c.hlen]
	copy(slot, h)
	c.ok[x] = true
	return slot
}

// drop forgets node x's hash and reports whether it was cached.
func (c *hashCache) drop(x uint32) bool {
	was := c.ok[x]
	c.ok[x] = false
	return was
}

// resize grows (with nothing cached for new nodes) or shrinks the cache to
// width nodes.
func (c *hashCache) resize(width uint32) {
	if int(width) <= len(c.ok) {
		c.ok = c.ok[:width:width]
		if c.hlen != 0 {
			c.buf = c.buf[: int(width)*c.hlen : int(width)*c.hlen]
		}
		return
	}
	c.ok = append(c.ok, make([]bool, int(width)-len(c.ok))...)
	if c.hlen != 0 {
		c.buf = append(c.buf, make([]byte, int(width)*c.hlen-len(c.buf))...)
	}
}

func (c *hashCache) clone() hashCache {
	return hashCache{hlen: c.hlen, buf: slices.Clone(c.buf), ok: slices.Clone(c.ok)}
}
