package wire

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
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
	w.id(e.Group)
	w.u16(uint16(e.Kind))
	w.id(e.Author)
	w.u64(e.Ctr)
	w.id(e.Prev)
	w.opaque(e.CT)
}

func (e *Envelope) encode(w *writer) {
	e.encodeTBS(w)
	w.opaque(e.Signature)
}

func decodeEnvelope(r *reader) Envelope {
	var e Envelope
	e.Group = r.id()
	e.Kind = Kind(r.u16())
	e.Author = r.id()
	e.Ctr = r.u64()
	e.Prev = r.id()
	e.CT = r.opaqueMax(MaxCTSize, "ct")
	e.Signature = r.opaqueMax(ed25519.SignatureSize, "signature")
	return e
}

// TBS returns the encoding the author signature covers.
func (e *Envelope) TBS() []byte {
	w := writer{b: make([]byte, 0, 32*3+2+8+len(e.CT)+4)}
	e.encodeTBS(&w)
	return w.b
}

// Encode returns the canonical encoding of e including its signature.
func (e *Envelope) Encode() ([]byte, error) {
	w := writer{b: make([]byte, 0, 32*3+2+8+len(e.CT)+72)}
	e.encode(&w)
	return w.b, w.err
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
	r := newReader(b)
	e := decodeEnvelope(r)
	if err := r.done(); err != nil {
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

func (x EnvelopeRef) encode(w *writer) { w.id(x.Author); w.u64(x.Ctr); w.id(x.Hash) }

func decodeRef(r *reader) EnvelopeRef {
	return EnvelopeRef{Author: r.id(), Ctr: r.u64(), Hash: r.id()}
}

func encodeRefs(w *writer, refs []EnvelopeRef) {
	w.vector(func(w *writer) {
		for _, x := range refs {
			x.encode(w)
		}
	})
}

func decodeRefs(r *reader) []EnvelopeRef {
	var out []EnvelopeRef
	r.list(func(r *reader) { out = append(out, decodeRef(r)) })
	return out
}
