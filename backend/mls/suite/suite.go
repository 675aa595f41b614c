// Package suite implements the MLS cipher suites of RFC 9420 §5.1 and the
// labelled helpers built on them: RefHash (§5.2), ExpandWithLabel,
// DeriveSecret (§8), DeriveTreeSecret (§9), SignWithLabel/VerifyWithLabel
// (§5.1.2) and EncryptWithLabel/DecryptWithLabel (§5.1.3).
//
// One [Suite] value describes a cipher suite; all operations are methods
// on it, so code above this package is generic over the suite. Suites 1, 2,
// 3, 5 and 7 are implemented on Go's standard library (crypto/hpke,
// crypto/ecdh, crypto/ed25519, crypto/ecdsa, AES-GCM) plus
// golang.org/x/crypto/chacha20poly1305 for suite 3's AEAD. Suites 4 and 6
// (X448/Ed448) give an error matching [ErrUnsupportedSuite].
//
// # Randomness
//
// Every operation that needs randomness takes an io.Reader. HPKE
// encryption draws its ephemeral key from that reader (RFC 9180 §4,
// GenerateKeyPair) and runs the base-mode key schedule of RFC 9180 §5.1
// here; decryption and DeriveKeyPair use crypto/hpke, and the tests check
// that each side interoperates with the other. ECDSA signing in Go 1.26
// always uses the system's secure source (hedged nonces), whatever reader
// is given.
//
// # Key encodings
//
// As in the RFC 9420 test vectors: Ed25519 private keys are the 32-byte
// seed; ECDSA private keys are the big-endian scalar and public keys the
// uncompressed SEC 1 point; ECDSA signatures are ASN.1 DER. HPKE keys use
// RFC 9180's SerializePrivateKey / SerializePublicKey.
package suite

import (
	"crypto/ecdh"
	"crypto/elliptic"
	"crypto/hpke"
	"fmt"
	"sync/atomic"

	"weald/backend/errcode"
)

// ID is a cipher suite identifier from the IANA "MLS Cipher Suites" registry.
type ID uint16

// The cipher suites of RFC 9420 §17.1.
const (
	MLS128DHKEMX25519AES128GCMSHA256Ed25519        ID = 1
	MLS128DHKEMP256AES128GCMSHA256P256             ID = 2
	MLS128DHKEMX25519ChaCha20Poly1305SHA256Ed25519 ID = 3
	MLS256DHKEMX448AES256GCMSHA512Ed448            ID = 4
	MLS256DHKEMP521AES256GCMSHA512P521             ID = 5
	MLS256DHKEMX448ChaCha20Poly1305SHA512Ed448     ID = 6
	MLS256DHKEMP384AES256GCMSHA384P384             ID = 7
)

// ErrUnsupportedSuite is matched (errors.Is) by the error for any suite this
// package does not implement.
var ErrUnsupportedSuite = errcode.New("mls/suite/unsupported", "this cipher suite is not supported")

// UnsupportedSuiteError names the unsupported suite; it matches ErrUnsupportedSuite.
type UnsupportedSuiteError struct{ ID ID }

func (e *UnsupportedSuiteError) Error() string {
	return fmt.Sprintf("mls/suite/unsupported: cipher suite %d is not supported", uint16(e.ID))
}

// Is reports whether target is ErrUnsupportedSuite.
func (e *UnsupportedSuiteError) Is(target error) bool { return target == ErrUnsupportedSuite }

type hashID uint8

const (
	sha256ID hashID = iota + 1
	sha384ID
	sha512ID
)

type aeadID uint8

const (
	aes128GCM aeadID = iota + 1
	aes256GCM
	chacha20Poly1305
)

type sigID uint8

const (
	sigEd25519 sigID = iota + 1
	sigECDSA
)

// Suite is one MLS cipher suite. Values are immutable and shared; obtain
// them with [ByID].
type Suite struct {
	id     ID
	hash   hashID
	nh     int
	aead   aeadID
	nk     int
	sig    sigID
	curve  elliptic.Curve // ECDSA signature curve
	dh     ecdh.Curve     // KEM curve
	nsk    int            // HPKE Nsk: private key / ikm length
	kem    hpke.KEM
	kdf    hpke.KDF
	hpAEAD hpke.AEAD
	kemID  uint16
	kdfID  uint16
	aeadID uint16
	// The DHKEM's own KDF equals the suite KDF in every supported suite,
	// so one HKDF serves both suite ids below.
	hpkeSuiteID [10]byte // "HPKE" || kem_id || kdf_id || aead_id
	kemSuiteID  [5]byte  // "KEM" || kem_id

	lastKey atomic.Pointer[SigningKey] // see ParseSigningKey
}

var suites = map[ID]*Suite{}

func init() {
	add := func(id ID, h hashID, nh int, a aeadID, nk int, s sigID, curve elliptic.Curve, dh ecdh.Curve, nsk int, kemID, kdfID, aID uint16) {
		kem, err := hpke.NewKEM(kemID)
		if err != nil {
			panic(err)
		}
		kdf, err := hpke.NewKDF(kdfID)
		if err != nil {
			panic(err)
		}
		ad, err := hpke.NewAEAD(aID)
		if err != nil {
			panic(err)
		}
		st := &Suite{id: id, hash: h, nh: nh, aead: a, nk: nk, sig: s, curve: curve, dh: dh, nsk: nsk,
			kem: kem, kdf: kdf, hpAEAD: ad, kemID: kemID, kdfID: kdfID, aeadID: aID}
		copy(st.hpkeSuiteID[:], "HPKE")
		st.hpkeSuiteID[4], st.hpkeSuiteID[5] = byte(kemID>>8), byte(kemID)
		st.hpkeSuiteID[6], st.hpkeSuiteID[7] = byte(kdfID>>8), byte(kdfID)
		st.hpkeSuiteID[8], st.hpkeSuiteID[9] = byte(aID>>8), byte(aID)
		copy(st.kemSuiteID[:], "KEM")
		st.kemSuiteID[3], st.kemSuiteID[4] = byte(kemID>>8), byte(kemID)
		suites[id] = st
	}
	add(1, sha256ID, 32, aes128GCM, 16, sigEd25519, nil, ecdh.X25519(), 32, 0x0020, 0x0001, 0x0001)
	add(2, sha256ID, 32, aes128GCM, 16, sigECDSA, elliptic.P256(), ecdh.P256(), 32, 0x0010, 0x0001, 0x0001)
	add(3, sha256ID, 32, chacha20Poly1305, 32, sigEd25519, nil, ecdh.X25519(), 32, 0x0020, 0x0001, 0x0003)
	add(5, sha512ID, 64, aes256GCM, 32, sigECDSA, elliptic.P521(), ecdh.P521(), 66, 0x0012, 0x0003, 0x0002)
	add(7, sha384ID, 48, aes256GCM, 32, sigECDSA, elliptic.P384(), ecdh.P384(), 48, 0x0011, 0x0002, 0x0002)
}

// ByID returns the suite with identifier id, or an *UnsupportedSuiteError.
func ByID(id ID) (*Suite, error) {
	if s, ok := suites[id]; ok {
		return s, nil
	}
	return nil, &UnsupportedSuiteError{ID: id}
}

// Supported reports whether ByID(id) succeeds.
func Supported(id ID) bool { _, ok := suites[id]; return ok }

// ID returns the suite's identifier.
func (s *Suite) ID() ID { return s.id }

// Nh is the output length of the suite's hash and KDF.
func (s *Suite) Nh() int { return s.nh }

// Nk is the AEAD key length.
func (s *Suite) Nk() int { return s.nk }

// Nn is the AEAD nonce length (12 for every suite).
func (s *Suite) Nn() int { return 12 }

// String returns e.g. "MLS suite 1".
func (s *Suite) String() string { return fmt.Sprintf("MLS suite %d", uint16(s.id)) }
