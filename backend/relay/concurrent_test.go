package relay

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// TestConcurrentRelays runs two Services (on PostgreSQL over two Stores, as
// two relay processes would be) against one workspace at once: writers in
// one group get gapless seqs, every ack is present, the trigger counter
// equals the sum of ct, and of racing CAS writers exactly one wins.
func TestConcurrentRelays(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		st2 := st
		if st.Engine() == "postgres" {
			// A second "process": its own Store on the same database.
			var err error
			url := st.(interface{ URL() string }).URL()
			st2, err = store.OpenPostgres(f.ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer st2.Close()
		}
		svcs := []*Service{f.svc, New(Config{Store: st2, Clock: f.clock.now})}
		g := id("busy group")
		writers := []string{"alice", "bob", "agent"}
		const perWriter = 15
		var mu sync.Mutex
		acked := map[uint64]wire.ID{}
		var wg sync.WaitGroup
		errs := make(chan error, len(writers))
		for wi, w := range writers {
			envs := make([]wire.Envelope, perWriter)
			prev := wire.ZeroID
			for i := range envs {
				envs[i] = mk(w, g, wire.KindContent, []byte(fmt.Sprintf("%s %d", w, i)), uint64(i+1), prev)
				prev = envs[i].Hash()
			}
			wg.Add(1)
			go func(svc *Service, who string, envs []wire.Envelope) {
				defer wg.Done()
				for i := range envs {
					acks, _, err := svc.Send(f.ctx, f.ws, principal(who), envs[i:i+1])
					if err != nil {
						errs <- fmt.Errorf("%s #%d: %w", who, i, err)
						return
					}
					mu.Lock()
					acked[acks[0].Seq] = acks[0].Hash
					mu.Unlock()
				}
			}(svcs[wi%2], w, envs)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		f.groups[g] = true
		out, err := f.svc.Fetch(f.ctx, f.ws, g, 0, MaxFetchLimit)
		if err != nil {
			t.Fatal(err)
		}
		n := len(writers) * perWriter
		if len(out.Envelopes) != n || out.HeadSeq != uint64(n) {
			t.Fatalf("stored %d envelopes, head %d; want %d", len(out.Envelopes), out.HeadSeq, n)
		}
		for i, e := range out.Envelopes {
			if e.Seq != uint64(i+1) || acked[e.Seq] != e.Envelope.Hash() {
				t.Fatalf("seq %d at %d: gap or unacked envelope", e.Seq, i)
			}
		}
		if counter, sum := logBytes(f); counter != sum {
			t.Errorf("byte counter %d != sum of ct %d", counter, sum)
		}

		// Racing access-set publications of version 2 and roster appends on
		// the empty head: exactly one of each wins, the others get cas/conflict.
		const racers = 4
		var pubWins, rosterWins int
		var rmu sync.Mutex
		var rg sync.WaitGroup
		for r := 0; r < racers; r++ {
			set := f.newSet(2, devices("alice", "bob"), "agent", fmt.Sprintf("recovery %d", r))
			wire.SignAccessSet(&set, key("alice"))
			rg.Add(1)
			go func(svc *Service, r int) {
				defer rg.Done()
				_, perr := svc.Publish(f.ctx, f.ws, set)
				_, rerr := svc.RosterAppend(f.ctx, f.ws, principal("alice"), wire.ZeroID, f.genesisFor("alice", id(fmt.Sprintf("user %d", r))).Bytes())
				rmu.Lock()
				defer rmu.Unlock()
				for _, c := range []struct {
					err  error
					wins *int
				}{{perr, &pubWins}, {rerr, &rosterWins}} {
					var we *wire.Error
					switch {
					case c.err == nil:
						*c.wins++
					case errors.As(c.err, &we) && we.Code == wire.CodeCASConflict:
					default:
						t.Errorf("racer %d: %v", r, c.err)
					}
				}
			}(svcs[r%2], r)
		}
		rg.Wait()
		if pubWins != 1 || rosterWins != 1 {
			t.Errorf("winners: access set %d, roster %d; want 1 each", pubWins, rosterWins)
		}
	})
}
