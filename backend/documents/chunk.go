package documents

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	"weald/backend/errcode"
)

// The Automerge binary container (automerge-binary-format-spec, "Chunk
// container"): magic, checksum, chunk type, uLEB128 length, contents. The
// checksum is the first four bytes of SHA-256(type ‖ length ‖ contents) and
// the full digest is the change hash.
var chunkMagic = [4]byte{0x85, 0x6f, 0x4a, 0x83}

const (
	chunkTypeDocument   = 0
	chunkTypeChange     = 1
	chunkTypeCompressed = 2
)

// Limits on what a received content payload may hold. A change is one
// message, edit or delete; these bounds are generous for that and keep a
// hostile payload from costing more than a bounded amount of work.
const (
	maxChangeSize    = 1 << 20 // bytes of one change chunk
	maxDeps          = 1024    // dependencies of one change
	maxActorSize     = 64      // bytes of an actor id
	maxChangesPerMsg = 4096    // change chunks in one payload
)

// Head is the hash of an Automerge change: the SHA-256 of its chunk. A
// document's heads are the changes no other change depends on.
type Head [32]byte

// String returns the head in lower-case hex.
func (h Head) String() string { return hex.EncodeToString(h[:]) }

// rawChange is one change chunk split out of a payload, with the fields of
// its header that Weald checks before handing it to Automerge.
type rawChange struct {
	hash    Head
	deps    []Head
	actor   []byte
	seq     uint64
	startOp uint64
	ops     uint64            // number of operations; maxOp = startOp + ops - 1
	cols    map[uint64][]byte // operation column data by column spec
	others  [][]byte          // the change's other actors (actor index 1, 2, …)
	bytes   []byte            // the whole chunk, magic included
}

// maxOp returns the counter of the change's last operation (startOp - 1 for
// an empty change).
func (c *rawChange) maxOp() uint64 { return c.startOp + c.ops - 1 }

// errChunk wraps every framing failure in [ErrBadChanges].
func errChunk(format string, args ...any) error {
	return fmt.Errorf("%w (%s)", ErrBadChanges, fmt.Sprintf(format, args...))
}

// splitChanges parses a concatenation of uncompressed Automerge change
// chunks. It rejects document chunks, compressed chunks, bad checksums,
// truncation and trailing bytes, so that nothing but well-framed changes ever
// reaches Automerge. It never panics.
func splitChanges(b []byte) ([]rawChange, error) {
	var out []rawChange
	for off := 0; off < len(b); {
		if len(out) == maxChangesPerMsg {
			return nil, errChunk("more than %d changes", maxChangesPerMsg)
		}
		c, n, err := parseChunk(b[off:])
		if err != nil {
			return nil, err
		}
		out = append(out, c)
		off += n
	}
	return out, nil
}

func parseChunk(b []byte) (rawChange, int, error) {
	var c rawChange
	if len(b) < 9 {
		return c, 0, errChunk("truncated chunk header")
	}
	if !bytes.Equal(b[:4], chunkMagic[:]) {
		return c, 0, errChunk("bad magic bytes")
	}
	switch b[8] {
	case chunkTypeChange:
	case chunkTypeDocument:
		return c, 0, errChunk("a document chunk is not a change")
	case chunkTypeCompressed:
		return c, 0, errChunk("compressed change chunks are not accepted")
	default:
		return c, 0, errChunk("unknown chunk type %d", b[8])
	}
	length, n, ok := uleb(b[9:])
	if !ok || length > maxChangeSize {
		return c, 0, errChunk("bad chunk length")
	}
	start := 9 + n
	end := start + int(length)
	if end > len(b) {
		return c, 0, errChunk("truncated chunk")
	}
	c.hash = sha256.Sum256(b[8:end])
	if !bytes.Equal(c.hash[:4], b[4:8]) {
		return c, 0, errChunk("bad checksum")
	}
	if err := c.parseHeader(b[start:end]); err != nil {
		return c, 0, err
	}
	c.bytes = b[:end:end]
	return c, end, nil
}

// parseHeader reads the dependencies, actor and sequence number at the start
// of a change chunk's contents (automerge-binary-format-spec "Change chunks").
func (c *rawChange) parseHeader(b []byte) error {
	ndeps, n, ok := uleb(b)
	if !ok || ndeps > maxDeps || ndeps*32 > uint64(len(b)-n) {
		return errChunk("bad dependency list")
	}
	b = b[n:]
	c.deps = make([]Head, ndeps)
	for i := range c.deps {
		copy(c.deps[i][:], b[:32])
		b = b[32:]
	}
	alen, n, ok := uleb(b)
	if !ok || alen == 0 || alen > maxActorSize || alen > uint64(len(b)-n) {
		return errChunk("bad actor")
	}
	c.actor = b[n : n+int(alen)]
	b = b[n+int(alen):]
	seq, n, ok := uleb(b)
	if !ok || seq == 0 {
		return errChunk("bad sequence number")
	}
	c.seq = seq
	b = b[n:]
	startOp, n, ok := uleb(b)
	if !ok || startOp == 0 || startOp > 1<<52 {
		return errChunk("bad start op")
	}
	c.startOp = startOp
	cols, others, err := opColumns(b[n:])
	if err != nil {
		return err
	}
	c.cols, c.others = cols, others
	if a, ok := cols[actionColumn]; ok {
		if c.ops, err = countRLE(a); err != nil {
			return err
		}
	}
	return nil
}

// Column specification of the action column of change operations
// (automerge-binary-format-spec "Change operation columns": column id 4,
// type uLEB128 RLE).
const actionColumn = 0x42

// maxOpsPerChange bounds the operations of one change (a post is about six).
const maxOpsPerChange = 4096

// opColumns reads the rest of a change header (time, message, other
// actors, column metadata) and returns the operation columns by spec and
// the other actors.
func opColumns(b []byte) (map[uint64][]byte, [][]byte, error) {
	_, n, ok := uleb(b) // time: a signed LEB128 has the same framing
	if !ok {
		return nil, nil, errChunk("bad time")
	}
	b = b[n:]
	mlen, n, ok := uleb(b)
	if !ok || mlen > uint64(len(b)-n) {
		return nil, nil, errChunk("bad message")
	}
	b = b[n+int(mlen):]
	nact, n, ok := uleb(b)
	if !ok || nact > maxDeps {
		return nil, nil, errChunk("bad actor list")
	}
	b = b[n:]
	var others [][]byte
	for range nact {
		alen, n, ok := uleb(b)
		if !ok || alen == 0 || alen > maxActorSize || alen > uint64(len(b)-n) {
			return nil, nil, errChunk("bad actor list")
		}
		others = append(others, b[n:n+int(alen)])
		b = b[n+int(alen):]
	}
	ncols, n, ok := uleb(b)
	if !ok || ncols > 64 {
		return nil, nil, errChunk("bad column metadata")
	}
	b = b[n:]
	var offset uint64
	type col struct{ spec, off, n uint64 }
	var cols []col
	var prevSpec uint64
	for i := range ncols {
		spec, n, ok := uleb(b)
		if !ok {
			return nil, nil, errChunk("bad column metadata")
		}
		b = b[n:]
		clen, n, ok := uleb(b)
		if !ok || clen > uint64(len(b)) {
			return nil, nil, errChunk("bad column metadata")
		}
		b = b[n:]
		if i > 0 && spec <= prevSpec {
			return nil, nil, errChunk("columns out of order")
		}
		prevSpec = spec
		if spec&0x08 != 0 {
			return nil, nil, errChunk("deflated columns are not accepted")
		}
		cols = append(cols, col{spec, offset, clen})
		offset += clen
	}
	if offset > uint64(len(b)) {
		return nil, nil, errChunk("truncated columns")
	}
	out := make(map[uint64][]byte, len(cols))
	for _, c := range cols {
		out[c.spec] = b[c.off : c.off+c.n]
	}
	return out, others, nil
}

// countRLE counts the values of an RLE-encoded uLEB128 column: runs of a
// signed length n > 0 followed by one value, n < 0 followed by -n literal
// values, or 0 followed by a count of nulls.
func countRLE(b []byte) (uint64, error) {
	var count uint64
	for len(b) > 0 {
		run, n, ok := sleb(b)
		if !ok {
			return 0, errChunk("bad run length")
		}
		b = b[n:]
		switch {
		case run > 0:
			if _, n, ok = uleb(b); !ok {
				return 0, errChunk("bad run value")
			}
			b = b[n:]
			count += uint64(run)
		case run < 0:
			for range -run {
				if _, n, ok = uleb(b); !ok {
					return 0, errChunk("bad literal value")
				}
				b = b[n:]
			}
			count += uint64(-run)
		default:
			nulls, n, ok := uleb(b)
			if !ok {
				return 0, errChunk("bad null run")
			}
			b = b[n:]
			count += nulls
		}
		if count > maxOpsPerChange {
			return 0, errChunk("too many operations")
		}
	}
	return count, nil
}

// sleb decodes a signed LEB128 of at most 10 bytes, bounded to ±2^40 so
// that run lengths cannot overflow a count.
func sleb(b []byte) (int64, int, bool) {
	var v int64
	var shift uint
	for i := 0; i < len(b) && i < 10; i++ {
		x := b[i]
		v |= int64(x&0x7f) << shift
		shift += 7
		if x&0x80 == 0 {
			if shift < 64 && x&0x40 != 0 {
				v |= -1 << shift
			}
			if v > 1<<40 || v < -(1<<40) {
				return 0, 0, false
			}
			return v, i + 1, true
		}
	}
	return 0, 0, false
}

// uleb decodes an unsigned LEB128 of at most 10 bytes.
func uleb(b []byte) (uint64, int, bool) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		x := b[i]
		if i == 9 && x > 1 {
			return 0, 0, false
		}
		v |= uint64(x&0x7f) << (7 * i)
		if x&0x80 == 0 {
			return v, i + 1, true
		}
	}
	return 0, 0, false
}

// sortHeads sorts heads in ascending byte order, the canonical order of a
// head list everywhere in Weald.
func sortHeads(h []Head) []Head {
	sort.Slice(h, func(i, j int) bool { return bytes.Compare(h[i][:], h[j][:]) < 0 })
	return h
}

// ErrBadChanges: received change bytes are not a well-formed list of
// Automerge changes, or Automerge refused them.
var ErrBadChanges = errcode.New("docs/bad_changes", "the received document changes are malformed and were not applied")
