// Package attest is head attestation (spec/lifecycle.md "Detection":
// "Split-view warning from head attestation, raised on disagreement and
// also on the silence that a withholding relay would produce instead of
// disagreement"; design/gaps.md "Head attestations": each client
// periodically signs the heads it sees — roster head; per group, seq and
// the envelope at it — and sends them as envelopes).
//
// An attestation is the ct of a head.attestation envelope (kind 0x0030) in
// the workspace root group. It is not encrypted: it holds nothing the relay
// does not know (group ids, seqs, envelope hashes, the roster head), and the
// envelope signature by the author's device key is what the relay cannot
// forge. This package encodes, decodes and compares; the engine sends and
// keeps them.
package attest

import (
	"fmt"
	"time"

	"weald/backend/errcode"
	"weald/backend/internal/codec"
)

// Version is the only attestation version.
const Version = 1

// MaxGroups bounds the group heads of one attestation (a workspace has at
// most 512 live groups; deleted ones are not attested).
const MaxGroups = 1024

// ErrMalformed refuses bytes that are not an attestation.
var ErrMalformed = errcode.New("attest/malformed", "a head attestation is not well formed")

// GroupHead is what the attester has processed of one group: the highest
// seq, and SHA-256 of the envelope at that seq (zero when that seq was
// dropped or deleted, so there was no envelope to hash).
type GroupHead struct {
	Group [32]byte
	Seq   uint64
	Hash  [32]byte
}

// Attestation is one device's view of the workspace's heads.
//
//	struct {
//	  uint8 version = 1;
//	  opaque workspace[32];
//	  uint64 time;                       // the attester's clock, unix milliseconds
//	  uint64 roster_length; opaque roster_head[32];
//	  struct { opaque group[32]; uint64 seq; opaque hash[32]; } groups<V>;  // ≤ 1024
//	} HeadAttestation;
type Attestation struct {
	Workspace    [32]byte
	Time         time.Time
	RosterLength uint64
	RosterHead   [32]byte
	Groups       []GroupHead
}

// Encode returns the attestation's encoding.
func (a *Attestation) Encode() []byte {
	var w codec.Writer
	w.U8(Version)
	w.Raw(a.Workspace[:])
	w.U64(uint64(a.Time.UnixMilli()))
	w.U64(a.RosterLength)
	w.Raw(a.RosterHead[:])
	w.Vector(func(w *codec.Writer) {
		for _, g := range a.Groups {
			w.Raw(g.Group[:])
			w.U64(g.Seq)
			w.Raw(g.Hash[:])
		}
	})
	return w.Bytes()
}

// Decode parses an attestation; it refuses another version, trailing
// bytes and more than MaxGroups heads (ErrMalformed).
func Decode(b []byte) (*Attestation, error) {
	r := codec.NewReader(b)
	var a Attestation
	v := r.U8()
	a.Workspace = r.Array32()
	ms := r.U64()
	a.RosterLength = r.U64()
	a.RosterHead = r.Array32()
	r.VectorMax(MaxGroups, func(r *codec.Reader) {
		var g GroupHead
		g.Group = r.Array32()
		g.Seq = r.U64()
		g.Hash = r.Array32()
		a.Groups = append(a.Groups, g)
	})
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if v != Version {
		return nil, fmt.Errorf("%w: version %d", ErrMalformed, v)
	}
	if ms > 1<<62 {
		return nil, fmt.Errorf("%w: time out of range", ErrMalformed)
	}
	a.Time = time.UnixMilli(int64(ms)).UTC()
	return &a, nil
}
