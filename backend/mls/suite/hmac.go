package suite

import (
	"crypto/sha256"
	"crypto/sha512"
)

// blockSize is the hash's block size in bytes.
func (s *Suite) blockSize() int {
	if s.hash == sha256ID {
		return 64
	}
	return 128
}

// sum hashes data into out (which has room for 64 bytes) and returns Nh.
func (s *Suite) sum(out *[64]byte, data []byte) int {
	switch s.hash {
	case sha384ID:
		h := sha512.Sum384(data)
		copy(out[:], h[:])
		return 48
	case sha512ID:
		*out = sha512.Sum512(data)
		return 64
	}
	h := sha256.Sum256(data)
	copy(out[:], h[:])
	return 32
}

// hmacAppend appends HMAC(key, a || b || c) (RFC 2104) to dst. It works on
// stack buffers through the one-shot hash functions, so short inputs (the
// usual case in the key schedule and secret tree) allocate nothing but the
// result.
func (s *Suite) hmacAppend(dst, key, a, b, c []byte) []byte {
	bs := s.blockSize()
	var kh [64]byte
	if len(key) > bs {
		n := s.sum(&kh, key)
		key = kh[:n]
	}
	var buf [384]byte
	m := buf[:bs]
	copy(m, key)
	for i := range m {
		m[i] ^= 0x36
	}
	m = append(append(append(m, a...), b...), c...)
	var inner [64]byte
	n := s.sum(&inner, m)
	m = buf[:bs]
	clear(m)
	copy(m, key)
	for i := range m {
		m[i] ^= 0x5c
	}
	m = append(m, inner[:n]...)
	var outer [64]byte
	n = s.sum(&outer, m)
	return append(dst, outer[:n]...)
}
