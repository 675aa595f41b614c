package groups

import (
	"fmt"
	"io"

	"weald/backend/internal/codec"
)

// Content schemes (docs/protocol/groups.md "History keys and content encryption").
const (
	SchemeHistory uint8 = 1 // open groups: a history key
	SchemeEpoch   uint8 = 2 // closed groups: the epoch's exporter key
)

// ContentCT is the ct of a content envelope.
type ContentCT struct {
	Scheme     uint8
	KeyID      [32]byte // SchemeHistory
	Epoch      uint64   // SchemeEpoch
	Nonce      [12]byte
	Ciphertext []byte
}

// Encode returns the canonical encoding.
func (c *ContentCT) Encode() []byte {
	var w codec.Writer
	w.U8(1)
	w.U8(c.Scheme)
	if c.Scheme == SchemeHistory {
		w.Raw(c.KeyID[:])
	} else {
		w.U64(c.Epoch)
	}
	w.Raw(c.Nonce[:])
	w.Opaque(c.Ciphertext)
	return w.Bytes()
}

// DecodeContentCT parses a ContentCT.
func DecodeContentCT(data []byte) (ContentCT, error) {
	r := codec.NewReader(data)
	var c ContentCT
	v := r.U8()
	c.Scheme = r.U8()
	switch c.Scheme {
	case SchemeHistory:
		c.KeyID = r.Array32()
	case SchemeEpoch:
		c.Epoch = r.U64()
	default:
		if r.Err() == nil {
			return ContentCT{}, fmt.Errorf("%w: content scheme %d", ErrDecode, c.Scheme)
		}
	}
	copy(c.Nonce[:], r.Raw(12))
	c.Ciphertext = r.OpaqueMax(maxBlob)
	if err := r.Done(); err != nil {
		return ContentCT{}, fmt.Errorf("%w: content: %v", ErrDecode, err)
	}
	if v != 1 {
		return ContentCT{}, fmt.Errorf("%w: content version %d", ErrVersion, v)
	}
	return c, nil
}

// ContentAAD binds a content ciphertext to its envelope position.
func ContentAAD(group, author [32]byte, ctr uint64) []byte {
	return labelled("content", func(w *codec.Writer) { w.Raw(group[:]); w.Raw(author[:]); w.U64(ctr) })
}

// SealContent encrypts plain for the envelope (group, author, ctr) under a
// history key (scheme 1) or an epoch key (scheme 2).
func SealContent(rand io.Reader, scheme uint8, keyID [32]byte, epoch uint64, key []byte, group, author [32]byte, ctr uint64, plain []byte) (ContentCT, error) {
	n, ct, err := seal(rand, key, ContentAAD(group, author, ctr), plain)
	if err != nil {
		return ContentCT{}, err
	}
	return ContentCT{Scheme: scheme, KeyID: keyID, Epoch: epoch, Nonce: n, Ciphertext: ct}, nil
}

// OpenContent decrypts c, found in envelope (group, author, ctr), with key.
func OpenContent(c ContentCT, key []byte, group, author [32]byte, ctr uint64) ([]byte, error) {
	return open(key, c.Nonce, ContentAAD(group, author, ctr), c.Ciphertext)
}
