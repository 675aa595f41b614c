package mls

import (
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"weald/backend/mls/keyschedule"
	"weald/backend/mls/tree"
	tm "weald/backend/mls/treemath"
)

// Benchmarks of issue 3's Speed section (suite 1). Reproduce with
//
//	go test -run '^$' -bench . -benchtime 3x ./backend/mls/
//
// Fixtures are built once per size and cached; building the 10,000-member
// full tree takes a while.

// seededReader is a fast deterministic io.Reader for fixtures.
type seededReader struct{ r *rand.ChaCha8 }

func (s seededReader) Read(p []byte) (int, error) { return s.r.Read(p) }

func seeded(seed byte) io.Reader {
	var k [32]byte
	k[0] = seed
	return seededReader{rand.NewChaCha8(k)}
}

// cpuMeter reports CPU milliseconds per operation beside ns/op.
type cpuMeter struct {
	b     *testing.B
	start int64
	n     int
}

func meter(b *testing.B) *cpuMeter { return &cpuMeter{b: b, start: processCPU()} }

func (m *cpuMeter) op() { m.n++ }

func (m *cpuMeter) done() {
	if m.n > 0 && m.start > 0 {
		m.b.ReportMetric(float64(processCPU()-m.start)/float64(m.n)/1e6, "cpu-ms/op")
	}
}

// benchFixture holds a committer and a receiver of one group.
type benchFixture struct {
	committer, receiver *Group
	cfg                 *Config
}

var fullFixtures, sparseFixtures = map[int]*benchFixture{}, map[int]*benchFixture{}

// bitReversed lists 0..n-1 in bit-reversed order (for filling a tree
// top-down with few encryptions per path).
func bitReversed(n int) []int {
	width := bits.Len(uint(n - 1))
	out := make([]int, 0, n)
	for i := 0; i < 1<<width; i++ {
		r := int(bits.Reverse(uint(i)) >> (bits.UintSize - width))
		if width == 0 {
			r = 0
		}
		if r < n {
			out = append(out, r)
		}
	}
	return out
}

// fullFixture builds an n-member group whose tree has every parent node a
// TreeKEM history can fill: each even leaf committed a path (in
// bit-reversed order), then the receiver (leaf 0) once more, so its
// private path keys are current. The committer is the last leaf.
func fullFixture(b *testing.B, n int) *benchFixture {
	if f, ok := fullFixtures[n]; ok {
		return f
	}
	cfg := &Config{Rand: seeded(1)}
	cs, err := newCipher(1, cfg.Rand)
	if err != nil {
		b.Fatal(err)
	}
	kps := make([]*KeyPackageBundle, n)
	for i := range kps {
		if kps[i], err = GenerateKeyPackage(cfg, 1, basic(fmt.Sprintf("member-%d", i))); err != nil {
			b.Fatal(err)
		}
	}
	l0 := kps[0].KeyPackage.LeafNode
	t := tree.New(cs, &l0)
	for i := 1; i < n; i++ {
		l := kps[i].KeyPackage.LeafNode
		t.AddLeaf(&l)
	}
	groupID := []byte("bench group")
	privs := make([]*tree.PrivateState, n)
	for i := range privs {
		privs[i] = tree.NewPrivateState(tm.LeafIndex(i), kps[i].EncryptionKey, kps[i].SignatureKey)
	}
	gc := func([]byte) ([]byte, error) { return []byte("fill"), nil }
	commitFrom := func(i int) {
		tmpl := *t.Leaf(tm.LeafIndex(i))
		if _, _, err := t.CreateUpdatePath(&tree.PathOptions{Rand: cfg.Rand, GroupID: groupID, Leaf: &tmpl,
			SignatureKey: privs[i].SignatureKey, GroupContext: gc, PrivateBefore: privs[i]}); err != nil {
			b.Fatal(err)
		}
	}
	if n > 1 {
		for _, i := range bitReversed(n) {
			if i%2 == 0 {
				commitFrom(i)
			}
		}
		commitFrom(0)
	}
	ctx := keyschedule.GroupContext{Version: 1, CipherSuite: 1, GroupID: groupID, Epoch: 1,
		TreeHash: t.TreeHash(), ConfirmedTranscriptHash: make([]byte, 32), Extensions: tree.Extensions{}}
	es, err := keyschedule.Derive(cs.s, make([]byte, 32), nil, nil, ctx.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	mk := func(p *tree.PrivateState) *Group {
		g := &Group{cfg: cfg, cs: cs, ctx: ctx.Clone(), tree: t.Clone(), priv: p.Clone(), active: true}
		if err := g.startEpoch(es); err != nil {
			b.Fatal(err)
		}
		g.tag = keyschedule.ConfirmationTag(cs.s, g.keys.confirmation, ctx.ConfirmedTranscriptHash)
		g.interim = keyschedule.InterimTranscriptHash(cs.s, ctx.ConfirmedTranscriptHash, g.tag)
		return g
	}
	f := &benchFixture{cfg: cfg, committer: mk(privs[n-1]), receiver: mk(privs[0])}
	fullFixtures[n] = f
	return f
}

// sparseFixture is a real group right after one commit added n-1 members:
// the creator's path is filled, every other leaf is unmerged. The creator
// commits, leaf 1 receives.
func sparseFixture(b *testing.B, n int) *benchFixture {
	if f, ok := sparseFixtures[n]; ok {
		return f
	}
	cfg := &Config{Rand: seeded(2)}
	g, err := NewGroup(cfg, 1, []byte("sparse"), basic("creator"))
	if err != nil {
		b.Fatal(err)
	}
	add := make([][]byte, n-1)
	var first *KeyPackageBundle
	for i := range add {
		kp, err := GenerateKeyPackage(cfg, 1, basic(fmt.Sprintf("member-%d", i+1)))
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			first = kp
		}
		add[i] = kp.Message()
	}
	sc, err := g.Commit(CommitOptions{Add: add, RatchetTreeInWelcome: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := g.Merge(sc); err != nil {
		b.Fatal(err)
	}
	r, _, err := JoinWelcome(cfg, sc.Welcome, []*KeyPackageBundle{first}, nil)
	if err != nil {
		b.Fatal(err)
	}
	f := &benchFixture{cfg: cfg, committer: g, receiver: r}
	sparseFixtures[n] = f
	return f
}

func benchCommitProcess(b *testing.B, fixture func(*testing.B, int) *benchFixture) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("commit/N=%d", n), func(b *testing.B) {
			f := fixture(b, n)
			b.ResetTimer()
			m := meter(b)
			for b.Loop() {
				if _, err := f.committer.Commit(CommitOptions{ForcePath: true}); err != nil {
					b.Fatal(err)
				}
				m.op()
			}
			m.done()
		})
		b.Run(fmt.Sprintf("process/N=%d", n), func(b *testing.B) {
			f := fixture(b, n)
			sc, err := f.committer.Commit(CommitOptions{ForcePath: true})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			m := meter(b)
			for b.Loop() {
				if _, err := f.receiver.Process(sc.Message); err != nil {
					b.Fatal(err)
				}
				m.op()
			}
			m.done()
		})
	}
}

// BenchmarkFullTree: a commit with a full path and processing it.
func BenchmarkFullTree(b *testing.B) { benchCommitProcess(b, fullFixture) }

// BenchmarkSparseTree: the same right after a batch add.
func BenchmarkSparseTree(b *testing.B) { benchCommitProcess(b, sparseFixture) }

// lockedReader makes a reader safe for concurrent use.
type lockedReader struct {
	mu sync.Mutex
	r  io.Reader
}

func (l *lockedReader) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(p)
}

// BenchmarkSparseParallel: the sparse-tree commit with its HPKE
// encryptions spread over GOMAXPROCS goroutines (Config.ParallelEncryption).
func BenchmarkSparseParallel(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("commit/N=%d", n), func(b *testing.B) {
			f := sparseFixture(b, n)
			g := f.committer
			saved, savedRand := g.cfg.ParallelEncryption, g.cs.rand
			g.cfg.ParallelEncryption, g.cs.rand = runtime.GOMAXPROCS(0), &lockedReader{r: savedRand}
			defer func() { g.cfg.ParallelEncryption, g.cs.rand = saved, savedRand }()
			b.ResetTimer()
			m := meter(b)
			for b.Loop() {
				if _, err := g.Commit(CommitOptions{ForcePath: true}); err != nil {
					b.Fatal(err)
				}
				m.op()
			}
			m.done()
		})
	}
}

// BenchmarkExternalJoin: joining from a GroupInfo with the ratchet_tree
// extension (tree import with leaf signatures checked in parallel, path
// creation, commit).
func BenchmarkExternalJoin(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			f := fullFixture(b, n)
			gi, err := f.committer.GroupInfo(true)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			m := meter(b)
			for b.Loop() {
				if _, _, err := ExternalJoin(f.cfg, gi, nil, basic("joiner"), ExternalJoinOptions{}); err != nil {
					b.Fatal(err)
				}
				m.op()
			}
			m.done()
		})
	}
}

// BenchmarkWelcome: processing a Welcome (with the tree) into a group.
func BenchmarkWelcome(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			f := fullFixture(b, n)
			kp, err := GenerateKeyPackage(f.cfg, 1, basic("newcomer"))
			if err != nil {
				b.Fatal(err)
			}
			sc, err := f.committer.Commit(CommitOptions{Add: [][]byte{kp.Message()}, RatchetTreeInWelcome: true})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			m := meter(b)
			for b.Loop() {
				if _, _, err := JoinWelcome(f.cfg, sc.Welcome, []*KeyPackageBundle{kp}, nil); err != nil {
					b.Fatal(err)
				}
				m.op()
			}
			m.done()
		})
	}
}

// BenchmarkApplication: 1 KiB application message protect and unprotect,
// in a fresh two-member group of its own (the receiver's ratchet must not
// fall more than the forward window behind the sender's).
func BenchmarkApplication(b *testing.B) {
	cfg := &Config{Rand: seeded(4)}
	sender, err := NewGroup(cfg, 1, []byte("app"), basic("sender"))
	if err != nil {
		b.Fatal(err)
	}
	kp, err := GenerateKeyPackage(cfg, 1, basic("receiver"))
	if err != nil {
		b.Fatal(err)
	}
	sc, err := sender.Commit(CommitOptions{Add: [][]byte{kp.Message()}, RatchetTreeInWelcome: true})
	if err != nil || sender.Merge(sc) != nil {
		b.Fatal(err)
	}
	receiver, _, err := JoinWelcome(cfg, sc.Welcome, []*KeyPackageBundle{kp}, nil)
	if err != nil {
		b.Fatal(err)
	}
	f := &benchFixture{cfg: cfg, committer: sender, receiver: receiver}
	data := make([]byte, 1024)
	b.Run("protect-1KiB", func(b *testing.B) {
		b.SetBytes(1024)
		// Protect from a copy, so that the receiver's ratchet stays in reach.
		st, err := f.committer.Encode()
		if err != nil {
			b.Fatal(err)
		}
		g, err := LoadGroup(cfg, st)
		if err != nil {
			b.Fatal(err)
		}
		m := meter(b)
		for b.Loop() {
			if _, err := g.Protect(data, nil); err != nil {
				b.Fatal(err)
			}
			m.op()
		}
		m.done()
	})
	b.Run("unprotect-1KiB", func(b *testing.B) {
		b.SetBytes(1024)
		msgs := make([][]byte, 0, 4096)
		for i := 0; i < cap(msgs); i++ {
			m, err := f.committer.Protect(data, nil)
			if err != nil {
				b.Fatal(err)
			}
			msgs = append(msgs, m)
		}
		i := 0
		b.ResetTimer()
		m := meter(b)
		defer m.done()
		for b.Loop() {
			if i == len(msgs) {
				b.StopTimer()
				for j := range msgs {
					msgs[j], _ = f.committer.Protect(data, nil)
				}
				i = 0
				b.StartTimer()
			}
			if _, err := f.receiver.Process(msgs[i]); err != nil {
				b.Fatal(err)
			}
			m.op()
			i++
		}
	})
}

// BenchmarkStateBytes reports the serialised state size per member.
func BenchmarkStateBytes(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("full/N=%d", n), func(b *testing.B) {
			f := fullFixture(b, n)
			var size int
			for b.Loop() {
				st, err := f.receiver.Encode()
				if err != nil {
					b.Fatal(err)
				}
				size = len(st)
			}
			b.ReportMetric(float64(size), "state-bytes")
			b.ReportMetric(float64(size)/float64(n), "bytes/member")
		})
	}
}

// BenchmarkCryptoFloor: the primitives a commit and a message are made of,
// in the same run, so the results above can be read as multiples of these.
func BenchmarkCryptoFloor(b *testing.B) {
	cs, err := newCipher(1, seeded(3))
	if err != nil {
		b.Fatal(err)
	}
	s := cs.s
	sk, _ := s.GenerateSigningKey(cs.rand)
	msg := make([]byte, 1024)
	sig, _ := s.SignWithLabel(cs.rand, sk, "bench", msg)
	kp, _ := s.GenerateKeyPair(cs.rand)
	kem, ct, _ := s.EncryptWithLabel(cs.rand, kp.Public, "bench", nil, msg[:32])
	key, nonce := make([]byte, 16), make([]byte, 12)
	run := func(name string, size int64, op func()) {
		b.Run(name, func(b *testing.B) {
			if size > 0 {
				b.SetBytes(size)
			}
			m := meter(b)
			for b.Loop() {
				op()
				m.op()
			}
			m.done()
		})
	}
	run("ed25519-sign", 0, func() { _, _ = s.SignWithLabel(cs.rand, sk, "bench", msg) })
	run("ed25519-verify", 0, func() { _ = s.VerifyWithLabel(sk.Public(), "bench", msg, sig) })
	run("hpke-seal-32B", 0, func() { _, _, _ = s.EncryptWithLabel(cs.rand, kp.Public, "bench", nil, msg[:32]) })
	run("hpke-open-32B", 0, func() { _, _ = s.DecryptWithLabel(kp.Private, "bench", nil, kem, ct) })
	run("x25519-derive-keypair", 0, func() { _, _ = s.DeriveKeyPair(msg[:32]) })
	run("sha256-1KiB", 1024, func() { _ = s.Hash(msg) })
	run("aes128gcm-seal-1KiB", 1024, func() { _, _ = s.Seal(nil, key, nonce, nil, msg) })
}
