package wire

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"

	"weald/backend/internal/codec"
)

// MaxCTSize is the largest ct an envelope may carry (16 MiB).
const MaxCTSize = 16 << 20

// Envelope is one signed message in a group's log (design/gaps.md "Relay
// protocol"):
//
//	struct {
//	    opaque group[32];
//	    uint16 kind;
//	    opaque author[32];   // KeyID of the signing device or agent key
//	    uint64 ctr;          // 1 for the author's first envelope in the group
//	    opaque prev[32];     // Hash of the author's previous envelope; zero when ctr = 1
//	    opaque ct<V>;
//	    opaque signature<V>; // Sign(author key, "envelope", encoding without signature)
//	} Envelope;
//
// The relay assigns seq on accept ([SeqEnvelope]); seq is not part of the
// signed or hashed bytes.
type Envelope struct {
	Group     ID
	Kind      Kind
	Author    ID
	Ctr       uint64
	Prev      ID
	CT        []byte
	Signature []byte
}

// SeqEnvelope is an accepted envelope with the seq the relay assigned:
// struct { uint64 seq; Envelope envelope; }.
type SeqEnvelope struct {
	Seq      uint64
	Envelope Envelope
}

func (e *Envelope) encodeTBS(w *writer) {
	w.Array32(e.Group)
	w.U16(uint16(e.Kind))
	w.Array32(e.Author)
	w.U64(e.Ctr)
	w.Array32(e.Prev)
	w.Opaque(e.CT)
}

func (e *Envelope) encode(w *writer) {
	e.encodeTBS(w)
	w.Opaque(e.Signature)
}

func decodeEnvelope(r *reader) Envelope {
	var e Envelope
	e.Group = ID(r.Array32())
	e.Kind = Kind(r.U16())
	e.Author = ID(r.Array32())
	e.Ctr = r.U64()
	e.Prev = ID(r.Array32())
	e.CT = opaqueMax(r, MaxCTSize, "ct")
	e.Signature = opaqueMax(r, ed25519.SignatureSize, "signature")
	return e
}

// TBS returns the encoding the author signature covers.
func (e *Envelope) TBS() []byte {
	w := codec.NewWriter(make([]byte, 0, 32*3+2+8+len(e.CT)+4))
	e.encodeTBS(w)
	return w.Bytes()
}

// Encode returns the canonical encoding of e including its signature.
func (e *Envelope) Encode() ([]byte, error) {
	w := codec.NewWriter(make([]byte, 0, 32*3+2+8+len(e.CT)+72))
	e.encode(w)
	return w.Bytes(), w.Err()
}

// Hash is SHA-256 of the envelope's full encoding (signature included). The
// next envelope of the same author in the same group names it as prev.
func (e *Envelope) Hash() ID {
	b, _ := e.Encode()
	return sha256.Sum256(b)
}

// SignEnvelope sets e.Author to the key's id and e.Signature to the author
// signature.
func SignEnvelope(e *Envelope, priv ed25519.PrivateKey) {
	e.Author = KeyID(priv.Public().(ed25519.PublicKey))
	e.Signature = Sign(priv, LabelEnvelope, e.TBS())
}

// VerifyEnvelope checks the author signature of e with pub, and that pub is the
// key e.Author names.
func VerifyEnvelope(e *Envelope, pub []byte) error {
	if KeyID(pub) != e.Author {
		return fmt.Errorf("envelope author %s is not key %s: %w", e.Author.Short(), KeyID(pub).Short(), ErrBadSignature)
	}
	return Verify(pub, LabelEnvelope, e.TBS(), e.Signature)
}

// DecodeEnvelope decodes one envelope; it rejects trailing bytes.
func DecodeEnvelope(b []byte) (Envelope, error) {
	r := codec.NewReader(b)
	e := decodeEnvelope(r)
	if err := done(r); err != nil {
		return Envelope{}, fmt.Errorf("decode envelope: %w", err)
	}
	return e, nil
}

// EnvelopeRef names an envelope by its place in its author's chain:
// struct { opaque author[32]; uint64 ctr; opaque hash[32]; } (the barrier
// entries of spec/lifecycle.md "Checkpoints").
type EnvelopeRef struct {
	Author ID
	Ctr    uint64
	Hash   ID
}

// RefOf returns the reference to e.
func RefOf(e *Envelope) EnvelopeRef { return EnvelopeRef{Author: e.Author, Ctr: e.Ctr, Hash: e.Hash()} }

func (x EnvelopeRef) encode(w *writer) { w.Array32(x.Author); w.U64(x.Ctr); w.Array32(x.Hash) }

func decodeRef(r *reader) EnvelopeRef {
	return EnvelopeRef{Author: ID(r.Array32()), Ctr: r.U64(), Hash: ID(r.Array32())}
}

func encodeRefs(w *writer, refs []EnvelopeRef) {
	w.Vector(func(w *writer) {
		for _, x := range refs {
			x.encode(w)
		}
	})
}

func decodeRefs(r *reader) []EnvelopeRef {
	var out []EnvelopeRef
	list(r, func(r *reader) { out = append(out, decodeRef(r)) })
	return out
}
