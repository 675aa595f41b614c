package secrettree

import (
	"bytes"
	"errors"
	mrand "math/rand/v2"
	"testing"

	"weald/backend/internal/codec"
	"weald/backend/mls/internal/mlstest"
	"weald/backend/mls/suite"
	"weald/backend/mls/treemath"
)

type hexb = mlstest.HexBytes

func TestSecretTreeVectors(t *testing.T) {
	var cases []struct {
		CipherSuite      uint16 `json:"cipher_suite"`
		EncryptionSecret hexb   `json:"encryption_secret"`
		SenderData       struct {
			Secret     hexb `json:"sender_data_secret"`
			Ciphertext hexb `json:"ciphertext"`
			Key        hexb `json:"key"`
			Nonce      hexb `json:"nonce"`
		} `json:"sender_data"`
		Leaves [][]struct {
			Generation       uint32 `json:"generation"`
			ApplicationKey   hexb   `json:"application_key"`
			ApplicationNonce hexb   `json:"application_nonce"`
			HandshakeKey     hexb   `json:"handshake_key"`
			HandshakeNonce   hexb   `json:"handshake_nonce"`
		} `json:"leaves"`
	}
	mlstest.Load(t, "secret-tree.json", &cases)
	var c mlstest.Counter
	for i, tc := range cases {
		if !c.Suite(tc.CipherSuite) {
			continue
		}
		t.Run(mlstest.SuiteCase(i, tc.CipherSuite), func(t *testing.T) {
			s, err := suite.ByID(suite.ID(tc.CipherSuite))
			if err != nil {
				t.Fatal(err)
			}
			k, n := SenderDataKeyNonce(s, tc.SenderData.Secret, tc.SenderData.Ciphertext)
			if !bytes.Equal(k, tc.SenderData.Key) || !bytes.Equal(n, tc.SenderData.Nonce) {
				t.Errorf("suite %d: sender data key/nonce mismatch", tc.CipherSuite)
			}
			tree, err := New(s, tc.EncryptionSecret, uint32(len(tc.Leaves)), Config{})
			if err != nil {
				t.Fatal(err)
			}
			for leaf, gens := range tc.Leaves {
				for _, g := range gens {
					for _, rt := range []struct {
						typ        RatchetType
						key, nonce []byte
					}{{Handshake, g.HandshakeKey, g.HandshakeNonce}, {Application, g.ApplicationKey, g.ApplicationNonce}} {
						kn, err := tree.Key(treemath.LeafIndex(leaf), rt.typ, g.Generation)
						if err != nil || !bytes.Equal(kn.Key, rt.key) || !bytes.Equal(kn.Nonce, rt.nonce) {
							t.Fatalf("suite %d leaf %d gen %d type %d: Key mismatch (%v)", tc.CipherSuite, leaf, g.Generation, rt.typ, err)
						}
						kn2, err := tree.Consume(treemath.LeafIndex(leaf), rt.typ, g.Generation)
						if err != nil || !bytes.Equal(kn2.Key, rt.key) {
							t.Fatalf("Consume mismatch: %v", err)
						}
						if _, err := tree.Key(treemath.LeafIndex(leaf), rt.typ, g.Generation); !errors.Is(err, ErrKeyConsumed) {
							t.Fatalf("reuse of a consumed key: %v", err)
						}
					}
				}
			}
		})
	}
	c.Report(t, "secret-tree.json")
}

func testTree(t *testing.T, cfg Config) *Tree {
	s, _ := suite.ByID(1)
	tree, err := New(s, bytes.Repeat([]byte{1}, 32), 8, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func TestOutOfOrderWindow(t *testing.T) {
	tree := testTree(t, Config{MaxForward: 10, MaxSkipped: 3})
	if _, err := tree.Key(3, Application, 11); !errors.Is(err, ErrTooFarAhead) {
		t.Fatalf("beyond window: %v", err)
	}
	k5, err := tree.Key(3, Application, 5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tree.Consume(3, Application, 5); err != nil {
		t.Fatal(err)
	}
	// Skipped 0..4; only the newest 3 (2,3,4) are kept.
	for g, want := range map[uint32]error{0: ErrKeyConsumed, 1: ErrKeyConsumed, 2: nil, 3: nil, 4: nil, 5: ErrKeyConsumed} {
		if _, err := tree.Key(3, Application, g); !errors.Is(err, want) && !(want == nil && err == nil) {
			t.Errorf("gen %d: %v want %v", g, err, want)
		}
	}
	if _, err := tree.Consume(3, Application, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := tree.Key(3, Application, 3); !errors.Is(err, ErrKeyConsumed) {
		t.Fatal("skipped key reusable")
	}
	// Sender view: a fresh tree's Next yields the same keys in order.
	sender := testTree(t, Config{})
	for g := uint32(0); g <= 5; g++ {
		kn, err := sender.Next(3, Application)
		if err != nil || kn.Generation != g {
			t.Fatal(err)
		}
		if g == 5 && !bytes.Equal(kn.Key, k5.Key) {
			t.Fatal("sender and receiver disagree")
		}
	}
	// Handshake ratchet independent of application ratchet.
	hk, _ := sender.Next(3, Handshake)
	if hk.Generation != 0 || bytes.Equal(hk.Key, k5.Key) {
		t.Fatal("handshake ratchet")
	}
	if _, err := tree.Key(8, Application, 0); !errors.Is(err, ErrLeafOutOfRange) {
		t.Fatal(err)
	}
}

func TestKeyDoesNotMutate(t *testing.T) {
	a := testTree(t, Config{})
	var before, after codec.Writer
	a.Encode(&before)
	for g := uint32(0); g < 20; g++ {
		if _, err := a.Key(5, Handshake, g); err != nil {
			t.Fatal(err)
		}
	}
	a.Encode(&after)
	if !bytes.Equal(before.Bytes(), after.Bytes()) {
		t.Fatal("Key changed the state")
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	a := testTree(t, Config{MaxForward: 50, MaxSkipped: 5})
	_, _ = a.Consume(2, Application, 7)
	_, _ = a.Consume(6, Handshake, 0)
	var w codec.Writer
	a.Encode(&w)
	b, err := Decode(codec.NewReader(w.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var w2 codec.Writer
	b.Encode(&w2)
	if !bytes.Equal(w.Bytes(), w2.Bytes()) {
		t.Fatal("re-encoding differs")
	}
	for _, leaf := range []treemath.LeafIndex{0, 2, 6, 7} {
		for g := uint32(0); g < 10; g++ {
			ka, ea := a.Key(leaf, Application, g)
			kb, eb := b.Key(leaf, Application, g)
			if (ea == nil) != (eb == nil) || !bytes.Equal(ka.Key, kb.Key) {
				t.Fatalf("leaf %d gen %d differs", leaf, g)
			}
		}
	}
}

func FuzzDecode(f *testing.F) {
	a := testTree(&testing.T{}, Config{})
	_, _ = a.Consume(1, Application, 3)
	var w codec.Writer
	a.Encode(&w)
	f.Add(w.Bytes())
	f.Fuzz(func(t *testing.T, in []byte) {
		tree, err := Decode(codec.NewReader(in))
		if err != nil {
			return
		}
		for l := uint32(0); l < tree.LeafCount() && l < 4; l++ {
			_, _ = tree.Key(treemath.LeafIndex(l), Application, 0)
			_, _ = tree.Next(treemath.LeafIndex(l), Handshake)
		}
	})
}

func BenchmarkNextApplicationKey(b *testing.B) {
	s, _ := suite.ByID(1)
	tree, _ := New(s, bytes.Repeat([]byte{1}, 32), 1024, Config{})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tree.Next(517, Application); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRandomDeliveryOrder delivers 200 messages of one sender in a random
// order within the window: every one decrypts exactly once, and keys the
// window has already passed are refused.
func TestRandomDeliveryOrder(t *testing.T) {
	send := testTree(t, Config{})
	recv := testTree(t, Config{MaxForward: 300, MaxSkipped: 300})
	const n = 200
	keys := make([]KeyNonce, n)
	for i := range keys {
		kn, err := send.Next(4, Application)
		if err != nil {
			t.Fatal(err)
		}
		keys[i] = kn
	}
	rng := mrand.New(mrand.NewPCG(1, 2))
	for _, i := range rng.Perm(n) {
		kn, err := recv.Key(4, Application, uint32(i))
		if err != nil || !bytes.Equal(kn.Key, keys[i].Key) || !bytes.Equal(kn.Nonce, keys[i].Nonce) {
			t.Fatalf("generation %d: %v", i, err)
		}
		if _, err := recv.Consume(4, Application, uint32(i)); err != nil {
			t.Fatal(err)
		}
		if _, err := recv.Key(4, Application, uint32(i)); !errors.Is(err, ErrKeyConsumed) {
			t.Fatalf("generation %d reusable: %v", i, err)
		}
	}
	// Nothing is left over: all skipped keys were consumed.
	r, _ := recv.ratchetFor(4, Application, false)
	if len(r.skipped) != 0 || r.next != n {
		t.Fatalf("left %d skipped keys, next %d", len(r.skipped), r.next)
	}
}

func TestNewRejectsBadLeafCount(t *testing.T) {
	s, _ := suite.ByID(1)
	for _, n := range []uint32{0, 3, 6, 1000} {
		if _, err := New(s, make([]byte, 32), n, Config{}); err == nil {
			t.Errorf("leaf count %d accepted", n)
		}
	}
}
