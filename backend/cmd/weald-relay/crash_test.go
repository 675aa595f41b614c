package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"weald/backend/relayclient"
	"weald/backend/wire"
)

// Crash test (issue 4, "Proof"): a bounded loop SIGKILLs the relay process
// while clients send and wait for acks, restarts it, and checks that every
// acknowledged envelope is present, seq has no gaps, and the byte counter
// equals the sum of ct lengths.
func TestCrashKeepsEveryAcknowledgedEnvelope(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) { crashTest(t, sqliteDB(t), 5) })
	t.Run("postgres", func(t *testing.T) { crashTest(t, postgresDB(t), 3) })
}

type ackRecord struct {
	group wire.ID
	seq   uint64
	hash  wire.ID
	ct    int
}

// writer sends batches on one author chain and resolves every ambiguous
// outcome (connection lost before the ack) by resending the same batch.
type writer struct {
	k      keyPair
	groups []wire.ID
	rng    *rand.Rand
	ctr    map[wire.ID]uint64
	prev   map[wire.ID]wire.ID

	acked      []ackRecord
	nAcked     atomic.Int64 // len(acked), read while run appends
	unacked    int          // batches committed whose ack was lost (seen as chain/replay on resend)
	ambiguous  int
	sentBatchs int
}

func (w *writer) batch() []wire.Envelope {
	n := 1 + w.rng.IntN(3)
	g := w.groups[w.rng.IntN(len(w.groups))]
	out := make([]wire.Envelope, n)
	for i := range out {
		ct := make([]byte, 10+w.rng.IntN(300))
		for j := range ct {
			ct[j] = byte(w.rng.Uint32())
		}
		w.ctr[g]++
		e := wire.Envelope{Group: g, Kind: wire.KindContent, Ctr: w.ctr[g], Prev: w.prev[g], CT: ct}
		wire.SignEnvelope(&e, w.k.priv)
		w.prev[g] = e.Hash()
		out[i] = e
	}
	return out
}

// run sends until stop is closed (or maxBatches), finishing the batch in
// flight. It returns an error for any outcome other than ack or replay.
func (w *writer) run(c *relayclient.Client, stop <-chan struct{}, maxBatches int) error {
	for b := 0; b < maxBatches; b++ {
		select {
		case <-stop:
			return nil
		default:
		}
		envs := w.batch()
		w.sentBatchs++
		for attempt := 0; ; attempt++ {
			if attempt > 200 {
				return fmt.Errorf("batch %d not resolved after %d attempts", b, attempt)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			acks, err := c.Send(ctx, envs...)
			cancel()
			if err == nil {
				if len(acks) != len(envs) {
					return fmt.Errorf("%d acks for %d envelopes", len(acks), len(envs))
				}
				for i, a := range acks {
					if a.Hash != envs[i].Hash() || a.Group != envs[i].Group {
						return fmt.Errorf("ack %d names another envelope", i)
					}
					w.acked = append(w.acked, ackRecord{group: a.Group, seq: a.Seq, hash: a.Hash, ct: len(envs[i].CT)})
					w.nAcked.Add(1)
				}
				break
			}
			var we *wire.Error
			if errors.As(err, &we) {
				if we.Code == wire.CodeChainReplay {
					if idx, _ := we.UintField("index"); idx != 0 {
						return fmt.Errorf("replay at index %d: a batch was partially accepted", idx)
					}
					w.unacked++
					break
				}
				return fmt.Errorf("send refused: %v", err)
			}
			// Lost connection or timeout: the batch may or may not be in.
			w.ambiguous++
			time.Sleep(20 * time.Millisecond)
		}
	}
	return nil
}

func crashTest(t *testing.T, db string, kills int) {
	first := startProc(t, db, "127.0.0.1:0")
	addr := first.addr
	members := []keyPair{seededKey("alice"), seededKey("bob"), seededKey("carol")}
	ws := provisionWorkspace(t, db, first.url, members...)
	groups := []wire.ID{{0xC1}, {0xC2}}

	writers := make([]*writer, len(members))
	clients := make([]*relayclient.Client, len(members))
	for i, m := range members {
		writers[i] = &writer{k: m, groups: groups, rng: rand.New(rand.NewPCG(uint64(i), 42)),
			ctr: map[wire.ID]uint64{}, prev: map[wire.ID]wire.ID{}}
		clients[i] = mustDial(t, first.url, ws.id, m)
	}
	stop := make(chan struct{})
	errs := make(chan error, len(writers))
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs <- writers[i].run(clients[i], stop, 100000)
		}(i)
	}

	rng := rand.New(rand.NewPCG(7, 7))
	cur := first
	deadline := time.Now().Add(60 * time.Second)
	ackedBefore := 0
	for round := 0; round < kills && time.Now().Before(deadline); round++ {
		time.Sleep(time.Duration(250+rng.IntN(350)) * time.Millisecond)
		cur.kill()
		n := 0
		for _, w := range writers {
			n += int(w.nAcked.Load())
		}
		t.Logf("round %d: SIGKILL with %d envelopes acknowledged so far", round+1, n)
		ackedBefore = n
		rs := time.Now()
		cur = startProc(t, db, addr)
		t.Logf("restarted in %v", time.Since(rs).Round(time.Millisecond))
	}
	time.Sleep(500 * time.Millisecond)
	close(stop)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("writers did not finish within 60 s")
	}
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}

	// Verify against a fresh connection to the restarted relay.
	c := mustDial(t, cur.url, ws.id, members[0])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var totalCT, acked, unacked, ambiguous int
	for _, w := range writers {
		acked += len(w.acked)
		unacked += w.unacked
		ambiguous += w.ambiguous
	}
	if acked <= ackedBefore && kills > 0 {
		t.Logf("note: no acknowledgements after the last restart")
	}
	stored := map[wire.ID][]wire.SeqEnvelope{}
	for _, g := range groups {
		var after uint64
		for page := 0; page < 10000; page++ {
			res, err := c.Fetch(ctx, g, after, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, se := range res.Envelopes {
				if se.Seq != after+1 {
					t.Fatalf("group %s: seq %d follows %d (gap)", g.Short(), se.Seq, after)
				}
				after = se.Seq
				totalCT += len(se.Envelope.CT)
				stored[g] = append(stored[g], se)
			}
			if !res.More {
				if res.HeadSeq != after {
					t.Fatalf("group %s: head_seq %d but fetched up to %d", g.Short(), res.HeadSeq, after)
				}
				break
			}
		}
	}
	for _, w := range writers {
		for _, a := range w.acked {
			log := stored[a.group]
			if a.seq == 0 || a.seq > uint64(len(log)) {
				t.Fatalf("acknowledged seq %d of group %s is missing (log has %d)", a.seq, a.group.Short(), len(log))
			}
			if got := log[a.seq-1].Envelope.Hash(); got != a.hash {
				t.Fatalf("acknowledged seq %d of group %s holds another envelope", a.seq, a.group.Short())
			}
		}
	}
	// Every author chain is complete: ctr 1..n with no holes.
	for _, g := range groups {
		next := map[wire.ID]uint64{}
		for _, se := range stored[g] {
			a := se.Envelope.Author
			if se.Envelope.Ctr != next[a]+1 {
				t.Fatalf("author %s in group %s: ctr %d after %d", a.Short(), g.Short(), se.Envelope.Ctr, next[a])
			}
			next[a] = se.Envelope.Ctr
		}
	}
	st, err := c.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.LogBytes != uint64(totalCT) {
		t.Fatalf("byte counter %d != sum of ct lengths %d", st.LogBytes, totalCT)
	}
	if acked == 0 {
		t.Fatal("nothing was acknowledged")
	}
	t.Logf("%d kills: %d envelopes acknowledged, %d batches committed with the ack lost, %d ambiguous sends resolved; "+
		"%d envelopes stored, byte counter %d = sum of ct", kills, acked, unacked, ambiguous,
		len(stored[groups[0]])+len(stored[groups[1]]), st.LogBytes)
	if err := cur.term(); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, cur.stderr.String())
	}
}
