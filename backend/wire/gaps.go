package wire

import (
	"crypto/sha256"
	"math"
)

// The relay deletes envelopes only two ways (spec/lifecycle.md "What the
// relay never does"): below a drop_before barrier, and recovery.wraps named
// by an admin-signed WRAPS_DELETE. A FETCH answer accounts for every seq it
// passes over, so that a client tells a legitimate deletion from an
// envelope the relay withholds (issue 11, docs/security.md section 8):
// each seq in (after_seq, through] is an envelope of the answer, lies below
// dropped_below (the seq of a kept checkpoint the client can verify), or
// has a Tombstone naming the signed instruction that deleted it.

// MaxDeletionBytes bounds the encoded instructions of one FETCH answer
// (beyond the first); the relay ends the page early instead.
const MaxDeletionBytes = 1 << 20

// Tombstone marks one recovery.wrap envelope deleted by a WRAPS_DELETE:
//
//	struct {
//	    uint64 seq;
//	    opaque tag[32];      // the deleted wrap's blinded tag
//	    uint16 deletion;     // index into the answer's deletions
//	} Tombstone;
type Tombstone struct {
	Seq      uint64
	Tag      ID
	Deletion uint16
}

func encodeTombstones(w *writer, ts []Tombstone) {
	w.Vector(func(w *writer) {
		for _, t := range ts {
			w.U64(t.Seq)
			w.Array32(t.Tag)
			w.U16(t.Deletion)
		}
	})
}

func decodeTombstones(r *reader) []Tombstone {
	var out []Tombstone
	list(r, func(r *reader) { out = append(out, Tombstone{Seq: r.U64(), Tag: ID(r.Array32()), Deletion: r.U16()}) })
	return out
}

// Hash identifies a WrapsDelete instruction: SHA-256 of its encoding.
func (d *WrapsDelete) Hash() ID {
	var w writer
	d.encode(&w)
	return sha256.Sum256(w.Bytes())
}

// Encode returns the canonical encoding of the signed instruction.
func (d *WrapsDelete) Encode() []byte { var w writer; d.encode(&w); return w.Bytes() }

// DeletedSeqs returns the seqs of e's tombstones after afterSeq that a
// client can account for: each names an instruction of the answer for
// workspace ws and e's group, whose signature verifies, whose signer is
// one the caller accepts (a device of its roster), and whose tags hold the
// tombstone's tag. Each instruction is checked once.
func (e *Envelopes) DeletedSeqs(ws ID, afterSeq uint64, signer func(key []byte) bool) map[uint64]bool {
	good := make([]map[ID]bool, len(e.Deletions)) // nil: not checked yet, or refused
	checked := make([]bool, len(e.Deletions))
	out := map[uint64]bool{}
	for _, t := range e.Deleted {
		i := int(t.Deletion)
		if t.Seq <= afterSeq || i >= len(e.Deletions) {
			continue
		}
		if !checked[i] {
			checked[i] = true
			d := &e.Deletions[i]
			if d.Workspace == ws && d.Group == e.Group && d.VerifySignature() == nil && signer(d.DeviceKey) {
				good[i] = make(map[ID]bool, len(d.Tags))
				for _, tag := range d.Tags {
					good[i][tag] = true
				}
			}
		}
		if good[i][t.Tag] {
			out[t.Seq] = true
		}
	}
	return out
}

// Gap is a run of seqs From..To (inclusive) that a FETCH answer passed over
// without an envelope or a deletion that explains it.
type Gap struct{ From, To uint64 }

// Account walks the answer e to a FETCH after afterSeq. barrier is the
// drop barrier the caller verified (0: none), deleted the tombstone seqs it
// verified. It returns upto, the highest seq such that every seq in
// (afterSeq, upto] is an envelope of e, below barrier or deleted, and the
// first gap after upto if there is one (then upto < gap.From). Envelopes
// out of ascending order end the accounted range before them.
func (e *Envelopes) Account(afterSeq, barrier uint64, deleted map[uint64]bool) (upto uint64, gap Gap, ok bool) {
	if afterSeq == math.MaxUint64 {
		return afterSeq, Gap{}, true
	}
	through := min(e.Through, math.MaxUint64-1)
	next := afterSeq + 1 // the first seq not yet accounted for
	covered := func(s uint64) (Gap, bool) {
		if s <= next {
			return Gap{}, true
		}
		// next..s-1 have no envelope: below the barrier, or each deleted.
		for q := next; q < s; q++ {
			if q < barrier {
				q = min(barrier, s) - 1
				continue
			}
			if !deleted[q] {
				return Gap{From: q, To: s - 1}, false
			}
		}
		return Gap{}, true
	}
	for _, se := range e.Envelopes {
		if se.Seq < next || se.Seq == math.MaxUint64 {
			return next - 1, Gap{}, true // out of order or a repeat: stop before it
		}
		if g, fine := covered(se.Seq); !fine {
			return g.From - 1, g, false
		}
		next = se.Seq + 1
	}
	if through >= next {
		if g, fine := covered(through + 1); !fine {
			return g.From - 1, g, false
		}
		next = through + 1
	}
	return next - 1, Gap{}, true
}
