package store

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"

	"weald/backend/errcode"
)

// Every value the store keeps, except the roster operations (signed, public
// to the workspace, and held by the relay too), is sealed with AES-256-GCM
// under the database's key (keys.go) before it is written:
//
//	sealed = 0x01 ‖ nonce (12 random bytes) ‖ AES-GCM(key, nonce, value, ad)
//	ad     = "weald/store/v1" ‖ 0x00 ‖ table ‖ 0x00 ‖ the row's name
//
// The associated data names the row, so a value moved to another row (one
// group's state under another group's id, a key package under another ref)
// fails to open instead of being used there.

const sealVersion = 1

// ErrUnreadable is returned for a stored value that fails to open.
var ErrUnreadable = errcode.New("store/unreadable", "a stored value failed its integrity check; the local state was changed outside Weald or belongs to another key")

type sealer struct {
	aead  cipher.AEAD
	terms []byte // the key of the search index's blinded terms (messages.go)
}

func newSealer(key []byte) (*sealer, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("store: key: %w", err)
	}
	a, err := cipher.NewGCM(b)
	if err != nil {
		return nil, fmt.Errorf("store: key: %w", err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("weald/store/v1 message terms"))
	return &sealer{aead: a, terms: m.Sum(nil)}, nil
}

func sealAD(table string, name []byte) []byte {
	ad := append([]byte("weald/store/v1\x00"), table...)
	return append(append(ad, 0), name...)
}

func (s *sealer) seal(table string, name, value []byte) ([]byte, error) {
	out := make([]byte, 1+s.aead.NonceSize(), 1+s.aead.NonceSize()+len(value)+s.aead.Overhead())
	out[0] = sealVersion
	if _, err := rand.Read(out[1:]); err != nil {
		return nil, fmt.Errorf("store: nonce: %w", err)
	}
	return s.aead.Seal(out, out[1:], value, sealAD(table, name)), nil
}

func (s *sealer) open(table string, name, sealed []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < 1+n+s.aead.Overhead() || sealed[0] != sealVersion {
		return nil, fmt.Errorf("%w (%s)", ErrUnreadable, table)
	}
	v, err := s.aead.Open(nil, sealed[1:1+n], sealed[1+n:], sealAD(table, name))
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", ErrUnreadable, table)
	}
	return v, nil
}
