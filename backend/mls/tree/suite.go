package tree

// Suite is the part of an MLS cipher suite (RFC 9420 §5.1) the tree layer
// uses. Keys are in their MLS wire form: HPKE keys as SerializePublicKey /
// SerializePrivateKey of the KEM, signature keys as the scheme's encoding.
type Suite interface {
	// ID is the CipherSuite value (RFC 9420 §17.1).
	ID() uint16
	// SecretSize is Nh, the KDF output length used for path secrets.
	SecretSize() int
	// Hash is the suite's hash function.
	Hash(data []byte) []byte
	// RefHash is MakeKeyPackageRef's hash (RFC 9420 §5.2).
	RefHash(label string, value []byte) []byte
	// DeriveSecret is RFC 9420 §8 DeriveSecret(secret, label).
	DeriveSecret(secret []byte, label string) ([]byte, error)
	// DeriveKeyPair is the KEM's DeriveKeyPair (RFC 9180 §7.1.3).
	DeriveKeyPair(ikm []byte) (priv, pub []byte, err error)
	// SignWithLabel is RFC 9420 §5.1.2.
	SignWithLabel(priv []byte, label string, content []byte) ([]byte, error)
	// VerifyWithLabel is RFC 9420 §5.1.2.
	VerifyWithLabel(pub []byte, label string, content, signature []byte) bool
	// EncryptWithLabel is RFC 9420 §5.1.3.
	EncryptWithLabel(pub []byte, label string, context, plaintext []byte) (kemOutput, ciphertext []byte, err error)
	// DecryptWithLabel is RFC 9420 §5.1.3.
	DecryptWithLabel(priv []byte, label string, context, kemOutput, ciphertext []byte) ([]byte, error)
}
