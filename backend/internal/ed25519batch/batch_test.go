package ed25519batch

import (
	"crypto/ed25519"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"filippo.io/edwards25519"
)

func keys(n int, seed uint64) []ed25519.PrivateKey {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]ed25519.PrivateKey, n)
	for i := range out {
		var s [32]byte
		for j := range s {
			s[j] = byte(rng.Uint32())
		}
		out[i] = ed25519.NewKeyFromSeed(s[:])
	}
	return out
}

// batch signs n messages, cycling through the given keys.
func batch(n int, ks []ed25519.PrivateKey) []Item {
	items := make([]Item, n)
	for i := range items {
		k := ks[i%len(ks)]
		msg := []byte(fmt.Sprintf("envelope %d", i))
		items[i] = Item{Pub: k.Public().(ed25519.PublicKey), Msg: msg, Sig: ed25519.Sign(k, msg)}
	}
	return items
}

func clone(items []Item) []Item {
	out := make([]Item, len(items))
	for i, it := range items {
		out[i] = Item{Pub: append([]byte(nil), it.Pub...), Msg: append([]byte(nil), it.Msg...), Sig: append([]byte(nil), it.Sig...)}
	}
	return out
}

func TestValidBatches(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 17, 100} {
		for _, nk := range []int{1, 3} {
			if !Verify(batch(n, keys(nk, uint64(n)))) {
				t.Errorf("a valid batch of %d signatures by %d keys is refused", n, nk)
			}
		}
	}
}

// Every corruption the per-signature check refuses, the batch refuses too,
// wherever in the batch it is.
func TestCorruptionsAreRefused(t *testing.T) {
	base := batch(20, keys(2, 7))
	other := keys(1, 99)[0]
	corruptions := map[string]func(it *Item){
		"R bit":         func(it *Item) { it.Sig[3] ^= 0x10 },
		"s bit":         func(it *Item) { it.Sig[40] ^= 0x01 },
		"s not reduced": func(it *Item) { addL(it.Sig[32:]) },
		"message":       func(it *Item) { it.Msg[0] ^= 1 },
		"other key":     func(it *Item) { it.Pub = other.Public().(ed25519.PublicKey) },
		"key bit":       func(it *Item) { it.Pub[5] ^= 0x20 },
		"short sig":     func(it *Item) { it.Sig = it.Sig[:63] },
		"short key":     func(it *Item) { it.Pub = it.Pub[:31] },
		"zero sig":      func(it *Item) { it.Sig = make([]byte, 64) },
		"R not canonical": func(it *Item) {
			// y = p + 1 encodes the same point as y = 1 non-canonically.
			r := make([]byte, 32)
			r[0] = 0xee
			for i := 1; i < 31; i++ {
				r[i] = 0xff
			}
			r[31] = 0x7f
			copy(it.Sig[:32], r)
		},
	}
	for name, corrupt := range corruptions {
		for _, at := range []int{0, 9, 19} {
			items := clone(base)
			corrupt(&items[at])
			single := len(items[at].Pub) == 32 && len(items[at].Sig) == 64 &&
				ed25519.Verify(items[at].Pub, items[at].Msg, items[at].Sig)
			if single {
				t.Fatalf("%s at %d: the corruption still verifies on its own", name, at)
			}
			if Verify(items) {
				t.Errorf("%s at %d: the batch accepted a signature that does not verify", name, at)
			}
			if Verify(items[at : at+1]) {
				t.Errorf("%s at %d: a batch of one accepted it", name, at)
			}
		}
	}
}

// Two bad signatures whose errors would cancel in an unweighted sum are
// still refused: each signature gets its own random weight.
func TestCancellingErrorsAreRefused(t *testing.T) {
	items := clone(batch(4, keys(1, 3)))
	// s₀ + 1 and s₁ - 1: the unweighted sum of the equations still holds.
	s0, _ := edwards25519.NewScalar().SetCanonicalBytes(items[0].Sig[32:])
	s1, _ := edwards25519.NewScalar().SetCanonicalBytes(items[1].Sig[32:])
	one := scalarOf(1)
	copy(items[0].Sig[32:], edwards25519.NewScalar().Add(s0, one).Bytes())
	copy(items[1].Sig[32:], edwards25519.NewScalar().Subtract(s1, one).Bytes())
	for i := 0; i < 20; i++ {
		if Verify(items) {
			t.Fatalf("run %d: a batch with two compensating bad signatures was accepted", i)
		}
	}
}

// A key holder signs with a small-order component added to R (all seven
// non-zero ones). crypto/ed25519.Verify refuses each; Verify refuses it too,
// alone and inside a batch of valid signatures by the same key (prepared
// path) and by few keys (crypto/ed25519 path). On main at 0478711 the batch
// accepted all of them (the cofactored equation), so the relay stored
// envelopes every client then dropped.
func TestTorsionSignatureIsRefusedAloneAndInABatch(t *testing.T) {
	k := keys(1, 11)[0]
	pub := k.Public().(ed25519.PublicKey)
	msg := []byte("torsion")
	if !ed25519.Verify(pub, msg, SignWithTorsion(k, msg, 0)) {
		t.Fatal("SignWithTorsion(…, 0) is not a valid signature")
	}
	for j := 1; j < 8; j++ {
		sig := SignWithTorsion(k, msg, j)
		if ed25519.Verify(pub, msg, sig) {
			t.Fatalf("j=%d: the cofactorless check accepted a torsion signature", j)
		}
		bad := Item{Pub: pub, Msg: msg, Sig: sig}
		for _, n := range []int{0, 1, 3, 20} {
			items := append(batch(n, []ed25519.PrivateKey{k}), bad)
			if Verify(items) {
				t.Fatalf("j=%d: a batch of %d valid signatures and a torsion one was accepted", j, n)
			}
		}
	}
}

// FuzzVerify: Verify never panics and judges a batch exactly as
// crypto/ed25519.Verify judges its items, for any appended item (including
// torsion signatures and small-order keys).
func FuzzVerify(f *testing.F) {
	ks := keys(1, 5)
	good := batch(6, ks)
	f.Add(good[1].Pub, good[1].Msg, good[1].Sig, uint8(0))
	f.Add(good[1].Pub, []byte("torsion"), SignWithTorsion(ks[0], []byte("torsion"), 4), uint8(6))
	f.Add(make([]byte, 32), []byte("m"), make([]byte, 64), uint8(1))
	f.Fuzz(func(t *testing.T, pub, msg, sig []byte, n uint8) {
		items := append(clone(good[:int(n)%len(good)]), Item{Pub: pub, Msg: msg, Sig: sig})
		single := len(pub) == 32 && len(sig) == 64 && ed25519.Verify(pub, msg, sig)
		if got := Verify(items); got != single {
			t.Fatalf("batch of %d: Verify = %v, crypto/ed25519.Verify of the last item = %v", len(items), got, single)
		}
	})
}

func scalarOf(v uint64) *edwards25519.Scalar {
	var b [32]byte
	for i := 0; i < 8; i++ {
		b[i] = byte(v >> (8 * i))
	}
	s, _ := edwards25519.NewScalar().SetCanonicalBytes(b[:])
	return s
}

// addL adds ℓ to the little-endian 32-byte s (s + ℓ < 2²⁵⁶ for a reduced s).
func addL(s []byte) {
	l := [32]byte{0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10}
	carry := 0
	for i := 0; i < 32; i++ {
		v := int(s[i]) + int(l[i]) + carry
		s[i], carry = byte(v), v>>8
	}
}

// BenchmarkVerify compares a batch against checking the same signatures one
// by one in the same run; "ratio" is batch time over one-by-one time.
func BenchmarkVerify(b *testing.B) {
	for _, n := range []int{8, 100} {
		for _, nk := range []int{1, 10} {
			b.Run(fmt.Sprintf("n=%d/keys=%d", n, nk), func(b *testing.B) {
				items := batch(n, keys(nk, 1))
				var single, batched float64
				for i := 0; i < b.N; i++ {
					t0 := nowNanos()
					for _, it := range items {
						if !ed25519.Verify(it.Pub, it.Msg, it.Sig) {
							b.Fatal("bad")
						}
					}
					t1 := nowNanos()
					if !Verify(items) {
						b.Fatal("bad batch")
					}
					single += float64(t1 - t0)
					batched += float64(nowNanos() - t1)
				}
				b.ReportMetric(batched/single, "ratio")
				b.ReportMetric(batched/float64(b.N*n)/1e3, "batch_µs/sig")
				b.ReportMetric(single/float64(b.N*n)/1e3, "single_µs/sig")
			})
		}
	}
}

func nowNanos() int64 { return time.Now().UnixNano() }
