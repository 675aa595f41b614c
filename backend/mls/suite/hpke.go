package suite

import (
	"crypto/ecdh"
	"crypto/hpke"
	"encoding/binary"
	"io"

	"weald/backend/errcode"
	"weald/backend/internal/codec"
)

// KeyPair is an HPKE key pair in serialized form.
type KeyPair struct {
	Private []byte // SerializePrivateKey
	Public  []byte // SerializePublicKey
}

// DeriveKeyPair is the KEM's DeriveKeyPair(ikm) (RFC 9180 §7.1.3), used
// for tree node keys (RFC 9420 §7.4) and external_pub (§8.3).
func (s *Suite) DeriveKeyPair(ikm []byte) (KeyPair, error) {
	k, err := s.kem.DeriveKeyPair(ikm)
	if err != nil {
		return KeyPair{}, err
	}
	priv, err := k.Bytes()
	if err != nil {
		return KeyPair{}, err
	}
	return KeyPair{Private: priv, Public: k.PublicKey().Bytes()}, nil
}

// GenerateKeyPair creates an HPKE key pair from rand (the DeriveKeyPair of
// Nsk random bytes, as RFC 9180 §7.1.3 permits).
func (s *Suite) GenerateKeyPair(rand io.Reader) (KeyPair, error) {
	ikm := make([]byte, s.nsk)
	if _, err := io.ReadFull(rand, ikm); err != nil {
		return KeyPair{}, err
	}
	return s.DeriveKeyPair(ikm)
}

// ValidateHPKEPublicKey checks that pub is a valid KEM public key.
func (s *Suite) ValidateHPKEPublicKey(pub []byte) error {
	if _, err := s.dh.NewPublicKey(pub); err != nil {
		return ErrBadKey
	}
	return nil
}

// HPKEPublicKeyOf returns the public key of an HPKE private key.
func (s *Suite) HPKEPublicKeyOf(priv []byte) ([]byte, error) {
	k, err := s.kem.NewPrivateKey(priv)
	if err != nil {
		return nil, ErrBadKey
	}
	return k.PublicKey().Bytes(), nil
}

// randomKey draws a private key for curve from rand by rejection sampling
// (at most 64 tries), masking P-521's top byte to its one used bit. The
// returned key is the one that validated, so its public key is computed
// once.
func randomKey(rand io.Reader, curve ecdh.Curve, n int) (*ecdh.PrivateKey, error) {
	b := make([]byte, n)
	for range 64 {
		if _, err := io.ReadFull(rand, b); err != nil {
			return nil, err
		}
		if n == 66 {
			b[0] &= 1
		}
		if k, err := curve.NewPrivateKey(b); err == nil {
			return k, nil
		}
	}
	return nil, errcode.New("mls/suite/random", "the random source produced no valid private key")
}

// encryptContext encodes EncryptContext (RFC 9420 §5.1.3):
//
//	struct { opaque label<V> = "MLS 1.0 " + Label; opaque context<V>; } EncryptContext;
func encryptContext(label string, context []byte) []byte {
	w := codec.NewWriter(make([]byte, 0, 16+len(label)+len(context)))
	writeLabel(w, label)
	w.Opaque(context)
	return w.Bytes()
}

// EncryptWithLabel is RFC 9420 §5.1.3: SealBase(pub, EncryptContext, "",
// plaintext). The ephemeral key is drawn from rand.
func (s *Suite) EncryptWithLabel(rand io.Reader, pub []byte, label string, context, plaintext []byte) (kemOutput, ciphertext []byte, err error) {
	ctx, err := s.setupBaseS(rand, pub, encryptContext(label, context))
	if err != nil {
		return nil, nil, err
	}
	ct, err := s.Seal(nil, ctx.key, ctx.baseNonce, nil, plaintext)
	if err != nil {
		return nil, nil, err
	}
	return ctx.enc, ct, nil
}

// DecryptWithLabel is RFC 9420 §5.1.3: OpenBase(kem_output, priv,
// EncryptContext, "", ciphertext), through crypto/hpke.
func (s *Suite) DecryptWithLabel(priv []byte, label string, context, kemOutput, ciphertext []byte) ([]byte, error) {
	k, err := s.kem.NewPrivateKey(priv)
	if err != nil {
		return nil, ErrBadKey
	}
	r, err := hpke.NewRecipient(kemOutput, k, s.kdf, s.hpAEAD, encryptContext(label, context))
	if err != nil {
		return nil, ErrDecrypt
	}
	pt, err := r.Open(nil, ciphertext)
	if err != nil {
		return nil, ErrDecrypt
	}
	return pt, nil
}

// ExportSend runs SetupBaseS(pub, info) with an ephemeral key from rand and
// returns kem_output and context.export(exporterContext, length) (RFC 9420
// §8.3 external initialisation uses info "" and the label
// "MLS 1.0 external init secret").
func (s *Suite) ExportSend(rand io.Reader, pub, info, exporterContext []byte, length int) (kemOutput, secret []byte, err error) {
	ctx, err := s.setupBaseS(rand, pub, info)
	if err != nil {
		return nil, nil, err
	}
	secret, err = s.labeledExpand(s.hpkeSuiteID[:], ctx.exporter, "sec", exporterContext, length)
	if err != nil {
		return nil, nil, err
	}
	return ctx.enc, secret, nil
}

// ExportReceive runs SetupBaseR(kemOutput, priv, info) through crypto/hpke
// and returns context.export(exporterContext, length).
func (s *Suite) ExportReceive(priv, kemOutput, info, exporterContext []byte, length int) ([]byte, error) {
	k, err := s.kem.NewPrivateKey(priv)
	if err != nil {
		return nil, ErrBadKey
	}
	r, err := hpke.NewRecipient(kemOutput, k, s.kdf, s.hpAEAD, info)
	if err != nil {
		return nil, ErrDecrypt
	}
	return r.Export(string(exporterContext), length)
}

type senderContext struct {
	enc, key, baseNonce, exporter []byte
}

// setupBaseS is RFC 9180 §5.1.1 SetupBaseS with DHKEM Encap (§4.1) whose
// ephemeral key comes from rand.
func (s *Suite) setupBaseS(rand io.Reader, pub, info []byte) (senderContext, error) {
	pkR, err := s.dh.NewPublicKey(pub)
	if err != nil {
		return senderContext{}, ErrBadKey
	}
	skE, err := randomKey(rand, s.dh, s.nsk)
	if err != nil {
		return senderContext{}, err
	}
	dh, err := skE.ECDH(pkR)
	if err != nil {
		return senderContext{}, ErrBadKey
	}
	enc := skE.PublicKey().Bytes()
	kemContext := make([]byte, 0, len(enc)+len(pub))
	kemContext = append(append(kemContext, enc...), pub...)
	// ExtractAndExpand with the KEM's suite id; Nsecret = Nh of the KEM's KDF.
	eaePRK := s.labeledExtract(s.kemSuiteID[:], nil, "eae_prk", dh)
	shared, err := s.labeledExpand(s.kemSuiteID[:], eaePRK, "shared_secret", kemContext, s.nh)
	if err != nil {
		return senderContext{}, err
	}
	// KeySchedule, mode_base, empty psk and psk_id.
	sid := s.hpkeSuiteID[:]
	pskIDHash := s.labeledExtract(sid, nil, "psk_id_hash", nil)
	infoHash := s.labeledExtract(sid, nil, "info_hash", info)
	ksContext := make([]byte, 0, 1+len(pskIDHash)+len(infoHash))
	ksContext = append(append(append(ksContext, 0), pskIDHash...), infoHash...)
	secret := s.labeledExtract(sid, shared, "secret", nil)
	key, err := s.labeledExpand(sid, secret, "key", ksContext, s.nk)
	if err != nil {
		return senderContext{}, err
	}
	nonce, err := s.labeledExpand(sid, secret, "base_nonce", ksContext, s.Nn())
	if err != nil {
		return senderContext{}, err
	}
	exp, err := s.labeledExpand(sid, secret, "exp", ksContext, s.nh)
	if err != nil {
		return senderContext{}, err
	}
	return senderContext{enc: enc, key: key, baseNonce: nonce, exporter: exp}, nil
}

const hpkeVersion = "HPKE-v1"

// labeledExtract is RFC 9180 §4 LabeledExtract.
func (s *Suite) labeledExtract(suiteID, salt []byte, label string, ikm []byte) []byte {
	in := make([]byte, 0, len(hpkeVersion)+len(suiteID)+len(label)+len(ikm))
	in = append(in, hpkeVersion...)
	in = append(in, suiteID...)
	in = append(in, label...)
	in = append(in, ikm...)
	return s.Extract(salt, in)
}

// labeledExpand is RFC 9180 §4 LabeledExpand.
func (s *Suite) labeledExpand(suiteID, prk []byte, label string, info []byte, length int) ([]byte, error) {
	if length < 0 || length > 0xffff {
		return nil, ErrLength
	}
	in := make([]byte, 2, 2+len(hpkeVersion)+len(suiteID)+len(label)+len(info))
	binary.BigEndian.PutUint16(in, uint16(length))
	in = append(in, hpkeVersion...)
	in = append(in, suiteID...)
	in = append(in, label...)
	in = append(in, info...)
	return s.Expand(prk, in, length)
}
