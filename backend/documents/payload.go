package documents

import (
	"errors"
	"fmt"

	"weald/backend/errcode"
	"weald/backend/internal/codec"
)

// Payload is the plaintext of a content envelope (wire.KindContent): the
// Automerge changes of one send, grouped by channel document.
//
//	struct {
//	    uint8 version = 1;
//	    DocChanges docs<V>;
//	} ContentPayload;
//
//	struct {
//	    uint8 kind;          // 1 = index, 2 = chat shard
//	    uint32 day;          // chat: UTC days since 1970-01-01; index: 0
//	    opaque changes<V>;   // concatenated uncompressed Automerge change chunks
//	} DocChanges;
//
// The document id is not carried: the receiver derives it from the
// envelope's group and (kind, day), so a payload cannot address a document
// of another group.
type Payload struct {
	Docs []DocChanges
}

// DocChanges is the changes to one document.
type DocChanges struct {
	Ref     DocRef
	Changes []byte
}

const (
	payloadVersion = 1
	maxPayloadDocs = 64
	// MaxPayloadSize bounds an encoded payload; it fits in an envelope's ct
	// (16 MiB) with room for the encryption overhead.
	MaxPayloadSize = 8 << 20
)

// ErrBadPayload: content payload bytes are not a valid encoding.
var ErrBadPayload = errcode.New("docs/bad_payload", "the content payload is malformed")

// Encode returns the canonical encoding.
func (p *Payload) Encode() ([]byte, error) {
	var w codec.Writer
	w.U8(payloadVersion)
	w.Vector(func(w *codec.Writer) {
		for _, d := range p.Docs {
			w.U8(uint8(d.Ref.Kind))
			w.U32(uint32(d.Ref.Day))
			w.Opaque(d.Changes)
		}
	})
	if w.Err() != nil {
		return nil, w.Err()
	}
	if len(w.Bytes()) > MaxPayloadSize {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrBadPayload, len(w.Bytes()), MaxPayloadSize)
	}
	return w.Bytes(), nil
}

// DecodePayload parses a content payload. It checks the framing only; the
// changes are checked when applied. It never panics.
func DecodePayload(b []byte) (Payload, error) {
	var p Payload
	if len(b) > MaxPayloadSize {
		return p, fmt.Errorf("%w: too large", ErrBadPayload)
	}
	r := codec.NewReader(b)
	if v := r.U8(); r.Err() == nil && v != payloadVersion {
		return p, fmt.Errorf("%w: version %d", ErrBadPayload, v)
	}
	seen := map[DocRef]bool{}
	r.VectorMax(maxPayloadDocs, func(r *codec.Reader) {
		var d DocChanges
		d.Ref.Kind = Kind(r.U8())
		d.Ref.Day = Day(r.U32())
		d.Changes = r.OpaqueMax(MaxPayloadSize)
		if r.Err() != nil {
			return
		}
		switch {
		case d.Ref.Kind == KindIndex && d.Ref.Day != 0,
			d.Ref.Kind == KindChat && d.Ref.Day > MaxDay,
			d.Ref.Kind != KindIndex && d.Ref.Kind != KindChat:
			r.Fail(fmt.Errorf("%w: bad document reference", ErrBadPayload))
		case len(d.Changes) == 0:
			r.Fail(fmt.Errorf("%w: empty changes", ErrBadPayload))
		case seen[d.Ref]:
			r.Fail(fmt.Errorf("%w: a document appears twice", ErrBadPayload))
		}
		seen[d.Ref] = true
		p.Docs = append(p.Docs, d)
	})
	if err := r.Done(); err != nil {
		if errors.Is(err, ErrBadPayload) {
			return Payload{}, err
		}
		return Payload{}, fmt.Errorf("%w: %v", ErrBadPayload, err)
	}
	if len(p.Docs) == 0 {
		return Payload{}, fmt.Errorf("%w: no documents", ErrBadPayload)
	}
	return p, nil
}
