package tree

import (
	"bytes"
	"fmt"

	"weald/backend/internal/codec"
)

// ProtocolVersionMLS10 is ProtocolVersion mls10 (RFC 9420 §6).
const ProtocolVersionMLS10 uint16 = 1

// KeyPackage is RFC 9420 §10 KeyPackage.
type KeyPackage struct {
	Version     uint16
	CipherSuite uint16
	InitKey     []byte
	LeafNode    LeafNode
	Extensions  Extensions
	Signature   []byte
}

func (k *KeyPackage) encodeContent(w *codec.Writer) {
	w.U16(k.Version)
	w.U16(k.CipherSuite)
	w.Opaque(k.InitKey)
	k.LeafNode.Encode(w)
	k.Extensions.Encode(w)
}

// Encode writes the key package.
func (k *KeyPackage) Encode(w *codec.Writer) {
	k.encodeContent(w)
	w.Opaque(k.Signature)
}

// Bytes returns the encoding of the key package.
func (k *KeyPackage) Bytes() []byte {
	w := codec.NewWriter(make([]byte, 0, 384))
	k.Encode(w)
	return w.Bytes()
}

// Decode reads a key package (syntax only).
func (k *KeyPackage) Decode(r *codec.Reader) {
	*k = KeyPackage{}
	k.Version = r.U16()
	k.CipherSuite = r.U16()
	k.InitKey = r.OpaqueCopy()
	k.LeafNode.Decode(r)
	k.Extensions = DecodeExtensions(r)
	k.Signature = r.OpaqueCopy()
}

// DecodeKeyPackage decodes exactly one KeyPackage from b.
func DecodeKeyPackage(b []byte) (*KeyPackage, error) {
	r := codec.NewReader(b)
	k := new(KeyPackage)
	k.Decode(r)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: key package: %w", ErrDecode, err)
	}
	return k, nil
}

// Sign sets the signature: SignWithLabel(priv, "KeyPackageTBS", KeyPackageTBS).
func (k *KeyPackage) Sign(s Suite, priv []byte) error {
	w := codec.NewWriter(nil)
	k.encodeContent(w)
	sig, err := s.SignWithLabel(priv, "KeyPackageTBS", w.Bytes())
	if err != nil {
		return fmt.Errorf("sign key package: %w", err)
	}
	k.Signature = sig
	return nil
}

// Ref is the KeyPackageRef: RefHash("MLS 1.0 KeyPackage Reference", KeyPackage).
func (k *KeyPackage) Ref(s Suite) []byte {
	return s.RefHash("MLS 1.0 KeyPackage Reference", k.Bytes())
}

// IsLastResort reports whether the key package carries the last_resort
// extension (it may then be used more than once).
func (k *KeyPackage) IsLastResort() bool {
	_, ok := k.Extensions.Find(ExtLastResort)
	return ok
}

// Validate checks a key package for use in a group per RFC 9420 §10.1: the
// version and cipher suite, the signature, the leaf node (source
// key_package, lifetime, capabilities, credential: see [LeafNode.Validate]
// with c), and that init_key differs from the leaf's encryption key.
func (k *KeyPackage) Validate(c *LeafContext) error {
	if k.Version != ProtocolVersionMLS10 || k.CipherSuite != c.Suite.ID() {
		return fmt.Errorf("%w: version %d suite %d", ErrVersionOrSuite, k.Version, k.CipherSuite)
	}
	w := codec.NewWriter(nil)
	k.encodeContent(w)
	if !c.Suite.VerifyWithLabel(k.LeafNode.SignatureKey, "KeyPackageTBS", w.Bytes(), k.Signature) {
		return fmt.Errorf("%w: key package", ErrBadSignature)
	}
	lc := *c
	lc.Source = SourceKeyPackage
	if err := k.LeafNode.Validate(&lc); err != nil {
		return fmt.Errorf("key package leaf node: %w", err)
	}
	if bytes.Equal(k.InitKey, k.LeafNode.EncryptionKey) {
		return fmt.Errorf("%w: init_key equals the leaf encryption key", ErrKeyPackage)
	}
	return nil
}
