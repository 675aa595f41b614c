package suite

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"

	"weald/backend/mls/internal/mlstest"
)

type hexb = mlstest.HexBytes

type cryptoBasics struct {
	CipherSuite uint16 `json:"cipher_suite"`
	RefHash     struct {
		Label string `json:"label"`
		Out   hexb   `json:"out"`
		Value hexb   `json:"value"`
	} `json:"ref_hash"`
	ExpandWithLabel struct {
		Secret  hexb   `json:"secret"`
		Label   string `json:"label"`
		Context hexb   `json:"context"`
		Length  int    `json:"length"`
		Out     hexb   `json:"out"`
	} `json:"expand_with_label"`
	DeriveSecret struct {
		Label  string `json:"label"`
		Out    hexb   `json:"out"`
		Secret hexb   `json:"secret"`
	} `json:"derive_secret"`
	DeriveTreeSecret struct {
		Secret     hexb   `json:"secret"`
		Label      string `json:"label"`
		Generation uint32 `json:"generation"`
		Length     int    `json:"length"`
		Out        hexb   `json:"out"`
	} `json:"derive_tree_secret"`
	SignWithLabel struct {
		Priv      hexb   `json:"priv"`
		Pub       hexb   `json:"pub"`
		Content   hexb   `json:"content"`
		Label     string `json:"label"`
		Signature hexb   `json:"signature"`
	} `json:"sign_with_label"`
	EncryptWithLabel struct {
		Priv       hexb   `json:"priv"`
		Pub        hexb   `json:"pub"`
		Label      string `json:"label"`
		Context    hexb   `json:"context"`
		Plaintext  hexb   `json:"plaintext"`
		KEMOutput  hexb   `json:"kem_output"`
		Ciphertext hexb   `json:"ciphertext"`
	} `json:"encrypt_with_label"`
}

func TestCryptoBasicsVectors(t *testing.T) {
	var cases []cryptoBasics
	mlstest.Load(t, "crypto-basics.json", &cases)
	var c mlstest.Counter
	for _, tc := range cases {
		s, err := ByID(ID(tc.CipherSuite))
		if !c.Suite(tc.CipherSuite) {
			if !errors.Is(err, ErrUnsupportedSuite) {
				t.Errorf("suite %d: want ErrUnsupportedSuite, got %v", tc.CipherSuite, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Run(s.String(), func(t *testing.T) {
			if got := s.RefHash(tc.RefHash.Label, tc.RefHash.Value); !bytes.Equal(got, tc.RefHash.Out) {
				t.Errorf("RefHash: %x want %x", got, tc.RefHash.Out)
			}
			e := tc.ExpandWithLabel
			if got, err := s.ExpandWithLabel(e.Secret, e.Label, e.Context, e.Length); err != nil || !bytes.Equal(got, e.Out) {
				t.Errorf("ExpandWithLabel: %x %v want %x", got, err, e.Out)
			}
			d := tc.DeriveSecret
			if got := s.DeriveSecret(d.Secret, d.Label); !bytes.Equal(got, d.Out) {
				t.Errorf("DeriveSecret: %x want %x", got, d.Out)
			}
			dt := tc.DeriveTreeSecret
			if got, err := s.DeriveTreeSecret(dt.Secret, dt.Label, dt.Generation, dt.Length); err != nil || !bytes.Equal(got, dt.Out) {
				t.Errorf("DeriveTreeSecret: %x %v want %x", got, err, dt.Out)
			}

			sg := tc.SignWithLabel
			if err := s.VerifyWithLabel(sg.Pub, sg.Label, sg.Content, sg.Signature); err != nil {
				t.Errorf("VerifyWithLabel(vector): %v", err)
			}
			k, err := s.ParseSigningKey(sg.Priv)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(k.Public(), sg.Pub) {
				t.Errorf("signing public key %x want %x", k.Public(), sg.Pub)
			}
			sig, err := s.SignWithLabel(rand.Reader, k, sg.Label, sg.Content)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.VerifyWithLabel(sg.Pub, sg.Label, sg.Content, sig); err != nil {
				t.Errorf("VerifyWithLabel(own): %v", err)
			}
			if err := s.VerifyWithLabel(sg.Pub, sg.Label+"x", sg.Content, sig); !errors.Is(err, ErrBadSignature) {
				t.Errorf("wrong label verified: %v", err)
			}

			en := tc.EncryptWithLabel
			pt, err := s.DecryptWithLabel(en.Priv, en.Label, en.Context, en.KEMOutput, en.Ciphertext)
			if err != nil || !bytes.Equal(pt, en.Plaintext) {
				t.Errorf("DecryptWithLabel: %x %v", pt, err)
			}
			kem, ct, err := s.EncryptWithLabel(rand.Reader, en.Pub, en.Label, en.Context, en.Plaintext)
			if err != nil {
				t.Fatal(err)
			}
			pt, err = s.DecryptWithLabel(en.Priv, en.Label, en.Context, kem, ct)
			if err != nil || !bytes.Equal(pt, en.Plaintext) {
				t.Errorf("round trip: %x %v", pt, err)
			}
			if _, err := s.DecryptWithLabel(en.Priv, en.Label, []byte("other"), kem, ct); !errors.Is(err, ErrDecrypt) {
				t.Errorf("wrong context decrypted: %v", err)
			}
		})
	}
	c.Report(t, "crypto-basics.json")
}
