package mls

import (
	"fmt"

	"weald/backend/internal/codec"
	"weald/backend/mls/suite"
	"weald/backend/mls/tree"
)

// KeyPackageLifetime is how long a generated KeyPackage is valid (RFC 9420
// §10: lifetime), counted from one hour before the clock's now to allow for
// clock skew.
const KeyPackageLifetime = 90 * 24 * 3600

// KeyPackageBundle is a KeyPackage (RFC 9420 §10) together with its private
// keys: the init key, the leaf's encryption key and the signature key. Keep
// it until a Welcome for it arrives; delete it after use unless it is a
// last_resort package.
type KeyPackageBundle struct {
	KeyPackage    *tree.KeyPackage
	InitPriv      []byte
	EncryptionKey []byte // private half of KeyPackage.LeafNode.EncryptionKey
	SignatureKey  []byte // private half of KeyPackage.LeafNode.SignatureKey
	ref           []byte
}

// defaultCapabilities lists what this implementation supports: mls10, the
// group's cipher suite, basic credentials, and the default extensions and
// proposals of RFC 9420 (which need not be listed, §7.2).
func defaultCapabilities(suiteID uint16) tree.Capabilities {
	return tree.Capabilities{
		Versions:     []uint16{tree.ProtocolVersionMLS10},
		CipherSuites: []uint16{suiteID},
		Extensions:   []tree.ExtensionType{},
		Proposals:    []uint16{},
		Credentials:  []tree.CredentialType{tree.CredentialBasic},
	}
}

func (c *Config) lifetime() tree.Lifetime {
	now := c.now()
	if now == 0 {
		return tree.Lifetime{NotBefore: 0, NotAfter: ^uint64(0)}
	}
	nb := uint64(0)
	if now > 3600 {
		nb = now - 3600
	}
	return tree.Lifetime{NotBefore: nb, NotAfter: now + KeyPackageLifetime}
}

// GenerateKeyPackage makes a fresh KeyPackage for cred in cipher suite
// suiteID with new init, encryption and signature keys from cfg.Rand.
func GenerateKeyPackage(cfg *Config, suiteID uint16, cred tree.Credential) (*KeyPackageBundle, error) {
	return GenerateKeyPackageWith(cfg, suiteID, cred, KeyPackageOptions{})
}

// KeyPackageOptions are the optional inputs of [GenerateKeyPackageWith].
type KeyPackageOptions struct {
	// SignatureKey, if set, is the leaf's private signature key (from
	// [GenerateSignatureKey]) instead of a fresh one, so the application
	// can bind its public half to an identity first; else [ErrSignatureKey].
	SignatureKey []byte
	// LeafExtensions are carried in the leaf node and listed in its
	// capabilities (RFC 9420 §7.2), e.g. the application's binding of the
	// signature key to its identity.
	LeafExtensions tree.Extensions
}

// GenerateKeyPackageWith is [GenerateKeyPackage] with options; the other
// keys are drawn from cfg.Rand in the same order either way.
func GenerateKeyPackageWith(cfg *Config, suiteID uint16, cred tree.Credential, opts KeyPackageOptions) (*KeyPackageBundle, error) {
	cs, err := newCipher(suiteID, cfg.rand())
	if err != nil {
		return nil, err
	}
	var sig *suite.SigningKey
	if opts.SignatureKey != nil {
		sig, err = parseOwnSigningKey(cs, opts.SignatureKey)
	} else {
		sig, err = cs.s.GenerateSigningKey(cs.rand)
	}
	if err != nil {
		return nil, err
	}
	enc, err := cs.s.GenerateKeyPair(cs.rand)
	if err != nil {
		return nil, err
	}
	ini, err := cs.s.GenerateKeyPair(cs.rand)
	if err != nil {
		return nil, err
	}
	caps := defaultCapabilities(suiteID)
	exts := tree.Extensions{}
	for _, x := range opts.LeafExtensions {
		exts = append(exts, tree.Extension{Type: x.Type, Data: append([]byte(nil), x.Data...)})
		if !caps.SupportsExtension(x.Type) {
			caps.Extensions = append(caps.Extensions, x.Type)
		}
	}
	kp := &tree.KeyPackage{
		Version:     tree.ProtocolVersionMLS10,
		CipherSuite: suiteID,
		InitKey:     ini.Public,
		LeafNode: tree.LeafNode{
			EncryptionKey: enc.Public,
			SignatureKey:  sig.Public(),
			Credential:    cred,
			Capabilities:  caps,
			Source:        tree.SourceKeyPackage,
			Lifetime:      cfg.lifetime(),
			Extensions:    exts,
		},
		Extensions: tree.Extensions{},
	}
	if err := kp.LeafNode.Sign(cs, sig.Bytes(), nil, 0); err != nil {
		return nil, err
	}
	if err := kp.Sign(cs, sig.Bytes()); err != nil {
		return nil, err
	}
	return &KeyPackageBundle{KeyPackage: kp, InitPriv: ini.Private, EncryptionKey: enc.Private, SignatureKey: sig.Bytes()}, nil
}

// Ref is the KeyPackageRef (RFC 9420 §5.2).
func (b *KeyPackageBundle) Ref() []byte {
	if b.ref == nil {
		cs, err := newCipher(b.KeyPackage.CipherSuite, nil)
		if err != nil {
			return nil
		}
		b.ref = b.KeyPackage.Ref(cs)
	}
	return b.ref
}

// Message is the KeyPackage as an MLSMessage (wire format mls_key_package).
func (b *KeyPackageBundle) Message() []byte {
	return encodeMLSMessage(wireKeyPackage, b.KeyPackage.Bytes())
}

// Encode encodes the bundle, private keys included:
//
//	struct { KeyPackage key_package; opaque init_priv<V>; opaque encryption_priv<V>; opaque signature_priv<V>; }
func (b *KeyPackageBundle) Encode() ([]byte, error) {
	w := codec.NewWriter(nil)
	b.KeyPackage.Encode(w)
	w.Opaque(b.InitPriv)
	w.Opaque(b.EncryptionKey)
	w.Opaque(b.SignatureKey)
	return w.Bytes(), w.Err()
}

// DecodeKeyPackageBundle decodes what Encode wrote.
func DecodeKeyPackageBundle(data []byte) (*KeyPackageBundle, error) {
	r := codec.NewReader(data)
	b := &KeyPackageBundle{KeyPackage: new(tree.KeyPackage)}
	b.KeyPackage.Decode(r)
	b.InitPriv = r.OpaqueCopy()
	b.EncryptionKey = r.OpaqueCopy()
	b.SignatureKey = r.OpaqueCopy()
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: key package bundle: %w", ErrDecode, err)
	}
	return b, nil
}
