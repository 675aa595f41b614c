package suite

import (
	"bytes"
	"crypto/hmac"
	"crypto/hpke"
	"crypto/rand"
	"errors"
	mrand "math/rand/v2"
	"testing"
)

func allSuites() []*Suite {
	var out []*Suite
	for _, id := range []ID{1, 2, 3, 5, 7} {
		s, err := ByID(id)
		if err != nil {
			panic(err)
		}
		out = append(out, s)
	}
	return out
}

func TestUnsupported(t *testing.T) {
	for _, id := range []ID{0, 4, 6, 8, 0xffff} {
		_, err := ByID(id)
		var ue *UnsupportedSuiteError
		if !errors.Is(err, ErrUnsupportedSuite) || !errors.As(err, &ue) || ue.ID != id {
			t.Errorf("suite %d: %v", id, err)
		}
	}
}

// TestExportInterop checks this package's SetupBaseS against crypto/hpke's
// SetupBaseR (export) and crypto/hpke's sender against DecryptWithLabel.
func TestExportInterop(t *testing.T) {
	for _, s := range allSuites() {
		kp, err := s.GenerateKeyPair(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		enc, secret, err := s.ExportSend(rand.Reader, kp.Public, nil, []byte("MLS 1.0 external init secret"), s.Nh())
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.ExportReceive(kp.Private, enc, nil, []byte("MLS 1.0 external init secret"), s.Nh())
		if err != nil || !bytes.Equal(got, secret) {
			t.Errorf("%v: export mismatch %v", s, err)
		}
		// crypto/hpke as sender, this package as receiver.
		pk, err := s.kem.NewPublicKey(kp.Public)
		if err != nil {
			t.Fatal(err)
		}
		info := encryptContext("L", []byte("ctx"))
		ct, err := hpke.Seal(pk, s.kdf, s.hpAEAD, info, []byte("hello"))
		if err != nil {
			t.Fatal(err)
		}
		encLen := len(kp.Public)
		pt, err := s.DecryptWithLabel(kp.Private, "L", []byte("ctx"), ct[:encLen], ct[encLen:])
		if err != nil || string(pt) != "hello" {
			t.Errorf("%v: crypto/hpke seal → DecryptWithLabel: %v", s, err)
		}
	}
}

func TestDeterministicWithInjectedRand(t *testing.T) {
	for _, s := range allSuites() {
		r1 := mrand.NewChaCha8([32]byte{1})
		r2 := mrand.NewChaCha8([32]byte{1})
		a, err := s.GenerateKeyPair(r1)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := s.GenerateKeyPair(r2)
		if !bytes.Equal(a.Private, b.Private) || !bytes.Equal(a.Public, b.Public) {
			t.Errorf("%v: key generation not deterministic", s)
		}
		k1, err := s.GenerateSigningKey(r1)
		if err != nil {
			t.Fatal(err)
		}
		k2, _ := s.GenerateSigningKey(r2)
		if !bytes.Equal(k1.Public(), k2.Public()) {
			t.Errorf("%v: signing key generation not deterministic", s)
		}
		e1, c1, err := s.EncryptWithLabel(r1, a.Public, "x", nil, []byte("p"))
		if err != nil {
			t.Fatal(err)
		}
		e2, c2, _ := s.EncryptWithLabel(r2, a.Public, "x", nil, []byte("p"))
		if !bytes.Equal(e1, e2) || !bytes.Equal(c1, c2) {
			t.Errorf("%v: encryption not deterministic", s)
		}
	}
}

func TestGarbageNeverPanics(t *testing.T) {
	junk := [][]byte{nil, {}, {1}, bytes.Repeat([]byte{0xff}, 200)}
	for _, s := range allSuites() {
		for _, a := range junk {
			for _, b := range junk {
				_ = s.VerifyWithLabel(a, "l", b, b)
				_, _ = s.DecryptWithLabel(a, "l", nil, b, b)
				_, _ = s.ParseSigningKey(a)
				_ = s.ValidateHPKEPublicKey(a)
				_, _ = s.Open(nil, a, b, nil, b)
				_, _ = s.ExportReceive(a, b, nil, nil, 32)
				if _, _, err := s.EncryptWithLabel(rand.Reader, a, "l", nil, b); err == nil {
					t.Errorf("%v: encrypt to junk key %x succeeded", s, a)
				}
			}
		}
	}
}

func TestExpandLimits(t *testing.T) {
	s, _ := ByID(1)
	if _, err := s.Expand(make([]byte, 32), nil, 255*32+1); !errors.Is(err, ErrLength) {
		t.Fatal(err)
	}
	out, err := s.Expand(make([]byte, 32), []byte("i"), 100)
	if err != nil || len(out) != 100 {
		t.Fatal(err)
	}
}

func BenchmarkPrimitives(b *testing.B) {
	for _, s := range allSuites() {
		kp, _ := s.GenerateKeyPair(rand.Reader)
		sk, _ := s.GenerateSigningKey(rand.Reader)
		msg := make([]byte, 256)
		sig, _ := s.SignWithLabel(rand.Reader, sk, "l", msg)
		kem, ct, _ := s.EncryptWithLabel(rand.Reader, kp.Public, "l", nil, msg[:32])
		b.Run(s.String()+"/Hash", func(b *testing.B) {
			for b.Loop() {
				s.Hash(msg)
			}
		})
		b.Run(s.String()+"/ExpandWithLabel", func(b *testing.B) {
			for b.Loop() {
				_, _ = s.ExpandWithLabel(msg[:32], "key", msg[:32], s.Nk())
			}
		})
		b.Run(s.String()+"/Sign", func(b *testing.B) {
			for b.Loop() {
				_, _ = s.SignWithLabel(rand.Reader, sk, "l", msg)
			}
		})
		b.Run(s.String()+"/Verify", func(b *testing.B) {
			for b.Loop() {
				_ = s.VerifyWithLabel(sk.Public(), "l", msg, sig)
			}
		})
		b.Run(s.String()+"/EncryptWithLabel", func(b *testing.B) {
			for b.Loop() {
				_, _, _ = s.EncryptWithLabel(rand.Reader, kp.Public, "l", nil, msg[:32])
			}
		})
		b.Run(s.String()+"/DecryptWithLabel", func(b *testing.B) {
			for b.Loop() {
				_, _ = s.DecryptWithLabel(kp.Private, "l", nil, kem, ct)
			}
		})
		b.Run(s.String()+"/DeriveKeyPair", func(b *testing.B) {
			for b.Loop() {
				_, _ = s.DeriveKeyPair(msg[:32])
			}
		})
	}
}

// TestHMACMatchesStdlib cross-checks the stack-buffer HMAC against
// crypto/hmac for key and message lengths around the block sizes.
func TestHMACMatchesStdlib(t *testing.T) {
	for _, s := range allSuites() {
		for _, kl := range []int{0, 1, 32, 64, 65, 128, 129, 300} {
			for _, ml := range []int{0, 1, 100, 400, 1000} {
				key := bytes.Repeat([]byte{byte(kl)}, kl)
				msg := bytes.Repeat([]byte{byte(ml + 1)}, ml)
				m := hmac.New(s.NewHash, key)
				m.Write(msg)
				if got := s.MAC(key, msg); !bytes.Equal(got, m.Sum(nil)) {
					t.Fatalf("%v key %d msg %d: HMAC mismatch", s, kl, ml)
				}
			}
		}
	}
}

func TestParseSigningKeyCache(t *testing.T) {
	for _, s := range allSuites() {
		a, _ := s.GenerateSigningKey(rand.Reader)
		b, _ := s.GenerateSigningKey(rand.Reader)
		pa, err := s.ParseSigningKey(a.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := s.ParseSigningKey(a.Bytes()); again != pa {
			t.Errorf("%v: same bytes parsed twice", s)
		}
		pb, _ := s.ParseSigningKey(b.Bytes())
		if bytes.Equal(pb.Public(), pa.Public()) || !bytes.Equal(pb.Public(), b.Public()) {
			t.Errorf("%v: cache returned the wrong key", s)
		}
		if _, err := s.ParseSigningKey(nil); err == nil {
			t.Errorf("%v: empty key accepted", s)
		}
	}
}
