package mls

import (
	"fmt"

	"weald/backend/internal/codec"
	"weald/backend/mls/tree"
)

// EncryptedGroupSecrets is RFC 9420 §12.4.3.1 EncryptedGroupSecrets.
type EncryptedGroupSecrets struct {
	NewMember             []byte // KeyPackageRef
	EncryptedGroupSecrets tree.HPKECiphertext
}

// Welcome is RFC 9420 §12.4.3.1 Welcome.
type Welcome struct {
	CipherSuite        uint16
	Secrets            []EncryptedGroupSecrets
	EncryptedGroupInfo []byte
}

// Encode writes the Welcome.
func (wl *Welcome) Encode(w *codec.Writer) {
	w.U16(wl.CipherSuite)
	w.Vector(func(w *codec.Writer) {
		for i := range wl.Secrets {
			w.Opaque(wl.Secrets[i].NewMember)
			wl.Secrets[i].EncryptedGroupSecrets.Encode(w)
		}
	})
	w.Opaque(wl.EncryptedGroupInfo)
}

// Decode reads a Welcome (syntax only).
func (wl *Welcome) Decode(r *codec.Reader) {
	*wl = Welcome{CipherSuite: r.U16()}
	r.Vector(func(r *codec.Reader) {
		var s EncryptedGroupSecrets
		s.NewMember = r.OpaqueCopy()
		s.EncryptedGroupSecrets.Decode(r)
		wl.Secrets = append(wl.Secrets, s)
	})
	wl.EncryptedGroupInfo = r.OpaqueCopy()
}

// Bytes returns the encoding of the Welcome.
func (wl *Welcome) Bytes() []byte {
	w := codec.NewWriter(nil)
	wl.Encode(w)
	return w.Bytes()
}

// DecodeWelcome decodes exactly one Welcome.
func DecodeWelcome(b []byte) (*Welcome, error) {
	r := codec.NewReader(b)
	wl := new(Welcome)
	wl.Decode(r)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: welcome: %w", ErrDecode, err)
	}
	return wl, nil
}
