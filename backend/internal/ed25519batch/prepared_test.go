package ed25519batch

import (
	"crypto/ed25519"
	"crypto/sha512"
	"testing"

	"filippo.io/edwards25519"
)

// PreparedKey.Verify gives crypto/ed25519.Verify's answer: for valid
// signatures, for every corruption of TestCorruptionsAreRefused that keeps
// the key, and for the torsion signature the cofactored batch accepts.
func TestPreparedAgreesWithStd(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		k := keys(1, seed)[0]
		pub := k.Public().(ed25519.PublicKey)
		pk, err := Prepare(pub)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range batch(50, []ed25519.PrivateKey{k}) {
			if !pk.Verify(it.Msg, it.Sig) {
				t.Fatalf("seed %d: a valid signature is refused", seed)
			}
			for _, corrupt := range []func(msg, sig []byte) ([]byte, []byte){
				func(m, s []byte) ([]byte, []byte) { s[1] ^= 4; return m, s },
				func(m, s []byte) ([]byte, []byte) { s[33] ^= 1; return m, s },
				func(m, s []byte) ([]byte, []byte) { addL(s[32:]); return m, s },
				func(m, s []byte) ([]byte, []byte) { m[0] ^= 1; return m, s },
				func(m, s []byte) ([]byte, []byte) { return m, s[:63] },
				func(m, s []byte) ([]byte, []byte) { return m, make([]byte, 64) },
			} {
				m, s := corrupt(append([]byte(nil), it.Msg...), append([]byte(nil), it.Sig...))
				want := len(s) == 64 && ed25519.Verify(pub, m, s)
				if got := pk.Verify(m, s); got != want {
					t.Fatalf("seed %d: prepared %v, crypto/ed25519 %v", seed, got, want)
				}
			}
		}
	}
	k := keys(1, 11)[0]
	pub := k.Public().(ed25519.PublicKey)
	pk, _ := Prepare(pub)
	msg, sig := torsionSignature(t, k)
	if pk.Verify(msg, sig) || ed25519.Verify(pub, msg, sig) {
		t.Fatal("a torsion signature passed a cofactorless check")
	}
}

func TestPrepareRefusesBadKeys(t *testing.T) {
	if _, err := Prepare(make([]byte, 31)); err == nil {
		t.Error("a 31-byte key was prepared")
	}
	notOnCurve := make([]byte, 32)
	notOnCurve[0] = 2 // y = 2 has no x on the curve
	if _, err := Prepare(notOnCurve); err == nil {
		t.Error("a key that is not a point was prepared")
	}
}

// FuzzPreparedVerify: never panics, and always agrees with crypto/ed25519.
func FuzzPreparedVerify(f *testing.F) {
	k := keys(1, 5)[0]
	pub := k.Public().(ed25519.PublicKey)
	pk, err := Prepare(pub)
	if err != nil {
		f.Fatal(err)
	}
	good := batch(2, []ed25519.PrivateKey{k})
	f.Add(good[0].Msg, good[0].Sig)
	f.Add([]byte("m"), make([]byte, 64))
	f.Fuzz(func(t *testing.T, msg, sig []byte) {
		want := len(sig) == 64 && ed25519.Verify(pub, msg, sig)
		if got := pk.Verify(msg, sig); got != want {
			t.Fatalf("prepared %v, crypto/ed25519 %v", got, want)
		}
	})
}

// torsionSignature is a signature by k whose R carries the point of order 2.
func torsionSignature(t *testing.T, k ed25519.PrivateKey) (msg, sig []byte) {
	t.Helper()
	pub := k.Public().(ed25519.PublicKey)
	msg = []byte("torsion")
	tBytes := make([]byte, 32)
	tBytes[0] = 0xec
	for i := 1; i < 31; i++ {
		tBytes[i] = 0xff
	}
	tBytes[31] = 0x7f
	torsion, err := new(edwards25519.Point).SetBytes(tBytes)
	if err != nil {
		t.Fatal(err)
	}
	h := sha512.Sum512(k.Seed())
	a, _ := edwards25519.NewScalar().SetBytesWithClamping(h[:32])
	r := scalarOf(12345)
	R := new(edwards25519.Point).Add(new(edwards25519.Point).ScalarBaseMult(r), torsion)
	d := sha512.New()
	d.Write(R.Bytes())
	d.Write(pub)
	d.Write(msg)
	c, _ := edwards25519.NewScalar().SetUniformBytes(d.Sum(nil))
	s := edwards25519.NewScalar().MultiplyAdd(c, a, r)
	return msg, append(R.Bytes(), s.Bytes()...)
}

// BenchmarkPreparedVerify compares a prepared key with crypto/ed25519 on the
// same signatures in the same run; "ratio" is prepared time over
// crypto/ed25519 time.
func BenchmarkPreparedVerify(b *testing.B) {
	k := keys(1, 1)[0]
	items := batch(64, []ed25519.PrivateKey{k})
	pk, err := Prepare(items[0].Pub)
	if err != nil {
		b.Fatal(err)
	}
	var std, prep int64
	for i := 0; i < b.N; i++ {
		it := items[i%len(items)]
		t0 := nowNanos()
		if !ed25519.Verify(it.Pub, it.Msg, it.Sig) {
			b.Fatal("bad")
		}
		t1 := nowNanos()
		if !pk.Verify(it.Msg, it.Sig) {
			b.Fatal("bad")
		}
		std += t1 - t0
		prep += nowNanos() - t1
	}
	b.ReportMetric(float64(prep)/float64(std), "ratio")
	b.ReportMetric(float64(prep)/float64(b.N)/1e3, "prepared_µs")
	b.ReportMetric(float64(std)/float64(b.N)/1e3, "std_µs")
}
