package suite

import (
	"crypto/aes"
	"crypto/cipher"

	"golang.org/x/crypto/chacha20poly1305"

	"weald/backend/errcode"
)

// ErrDecrypt is returned when AEAD or HPKE decryption fails.
var ErrDecrypt = errcode.New("mls/suite/decrypt", "the ciphertext could not be decrypted")

// ErrKeySize is returned when an AEAD key or nonce has the wrong length.
var ErrKeySize = errcode.New("mls/suite/key_size", "an AEAD key or nonce has the wrong length")

func (s *Suite) newAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != s.nk {
		return nil, ErrKeySize
	}
	if s.aead == chacha20Poly1305 {
		return chacha20poly1305.New(key)
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

// Seal encrypts and authenticates plaintext with the suite AEAD,
// appending the result to dst.
func (s *Suite) Seal(dst, key, nonce, aad, plaintext []byte) ([]byte, error) {
	a, err := s.newAEAD(key)
	if err != nil {
		return nil, err
	}
	if len(nonce) != a.NonceSize() {
		return nil, ErrKeySize
	}
	return a.Seal(dst, nonce, plaintext, aad), nil
}

// Open authenticates and decrypts ciphertext, appending the plaintext to
// dst. It returns ErrDecrypt if authentication fails.
func (s *Suite) Open(dst, key, nonce, aad, ciphertext []byte) ([]byte, error) {
	a, err := s.newAEAD(key)
	if err != nil {
		return nil, err
	}
	if len(nonce) != a.NonceSize() {
		return nil, ErrKeySize
	}
	out, err := a.Open(dst, nonce, ciphertext, aad)
	if err != nil {
		return nil, ErrDecrypt
	}
	return out, nil
}
