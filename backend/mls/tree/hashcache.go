package tree

// hashCache holds the tree hash of every node in copy-on-write chunks of
// pointer-free memory (see cow.go), so cloning a tree is cheap and the
// garbage collector never scans it. ok says whether node x's hash is current.
// Invariant: if ok(x) is false, so is ok of every ancestor of x.
type hashCache struct {
	hlen int // hash length, known after the first hash is stored
	buf  cowBytes
	ok   cowSlice[bool]
}

func newHashCache(width uint32) hashCache { return hashCache{ok: newCowSlice[bool](int(width))} }

// get returns node x's cached hash (aliasing the cache; copy it before the
// tree changes) or nil.
func (c *hashCache) get(x uint32) []byte {
	if !c.ok.at(int(x)) {
		return nil
	}
	return c.buf.at(int(x))
}

// put stores h as node x's hash and returns the cached copy.
func (c *hashCache) put(x uint32, h []byte) []byte {
	if c.hlen == 0 {
		c.hlen = len(h)
		c.buf = cowBytes{rec: c.hlen}
		c.buf.resize(c.ok.len())
	}
	if len(h) != c.hlen {
		return h // cannot happen with one suite; do not cache
	}
	slot := c.buf.set(int(x), h)
	c.ok.set(int(x), true)
	return slot
}

// drop forgets node x's hash and reports whether it was cached.
func (c *hashCache) drop(x uint32) bool {
	if !c.ok.at(int(x)) {
		return false
	}
	c.ok.set(int(x), false)
	return true
}

// resize grows (with nothing cached for new nodes) or shrinks the cache to
// width nodes.
func (c *hashCache) resize(width uint32) {
	c.ok.resize(int(width))
	if c.hlen != 0 {
		c.buf.resize(int(width))
	}
}

func (c *hashCache) clone() hashCache {
	return hashCache{hlen: c.hlen, buf: c.buf.clone(), ok: c.ok.clone()}
}
