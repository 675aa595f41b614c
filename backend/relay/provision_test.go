package relay

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// TestProvisionModes (issue 15, self-serve provisioning): operator mode
// refuses every PROVISION, open mode takes any, token mode needs a token;
// a workspace already held is workspace/exists and takes no use.
func TestProvisionModes(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		gen := pub(key("genesis " + t.Name()))
		op := New(Config{Store: st})
		wantCode(t, op.Provision(ctx, id("op ws"), gen, nil), wire.CodeProvisionOperatorOnly)
		wantCode(t, op.Provision(ctx, id("op ws"), gen, []byte("any token")), wire.CodeProvisionOperatorOnly)

		open := New(Config{Store: st, Provisioning: ProvisionOpen})
		if err := open.Provision(ctx, id("open ws"), gen, nil); err != nil {
			t.Fatalf("open mode: %v", err)
		}
		wantCode(t, open.Provision(ctx, id("open ws"), gen, nil), wire.CodeWorkspaceExists)
		wantCode(t, open.Provision(ctx, id("bad key ws"), []byte("short"), nil), wire.CodeMalformed)

		tok := New(Config{Store: st, Provisioning: ProvisionToken})
		wantCode(t, tok.Provision(ctx, id("tok ws"), gen, nil), wire.CodeProvisionTokenMissing)
		token, _, err := tok.CreateProvisionToken(ctx, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		// A workspace already held uses nothing.
		wantCode(t, tok.Provision(ctx, id("open ws"), gen, token), wire.CodeWorkspaceExists)
		if err := tok.Provision(ctx, id("tok ws"), gen, token); err != nil {
			t.Fatalf("token mode: %v", err)
		}
		w, err := viewWorkspace(ctx, st, id("tok ws"))
		if err != nil || string(w.GenesisKey) != string(gen) {
			t.Fatalf("provisioned workspace: %+v %v", w, err)
		}
		_, _, err = tok.CreateProvisionToken(ctx, 0, 0)
		wantCode(t, err, wire.CodeMalformed)
	})
}

func viewWorkspace(ctx context.Context, st store.Store, ws wire.ID) (w store.Workspace, err error) {
	err = st.View(ctx, func(tx store.Tx) error {
		w, err = tx.Workspace(ctx, ws)
		return err
	})
	return w, err
}

// TestProvisionTokenRefusals: an unknown token, an expired one and a
// used-up one are refused with their own codes and change nothing (no
// workspace, no use taken).
func TestProvisionTokenRefusals(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
		svc := New(Config{Store: st, Provisioning: ProvisionToken, Clock: clock.now})
		gen := pub(key("genesis"))

		wantCode(t, svc.Provision(ctx, id("a"), gen, []byte("not a token the relay made")), wire.CodeProvisionTokenUnknown)

		twice, _, err := svc.CreateProvisionToken(ctx, 2, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Provision(ctx, id("a"), gen, twice); err != nil {
			t.Fatal(err)
		}
		clock.advance(time.Hour) // expires_at is not after now: expired
		wantCode(t, svc.Provision(ctx, id("b"), gen, twice), wire.CodeProvisionTokenExpired)

		once, _, err := svc.CreateProvisionToken(ctx, 1, 0) // never expires
		if err != nil {
			t.Fatal(err)
		}
		// A refused provision (bad key) takes no use.
		wantCode(t, svc.Provision(ctx, id("c"), []byte("short"), once), wire.CodeMalformed)
		if err := svc.Provision(ctx, id("c"), gen, once); err != nil {
			t.Fatal(err)
		}
		clock.advance(365 * 24 * time.Hour)
		wantCode(t, svc.Provision(ctx, id("d"), gen, once), wire.CodeProvisionTokenUsedUp)
		for _, ws := range []string{"b", "d"} {
			if _, err := viewWorkspace(ctx, st, id(ws)); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("workspace %s after a refused provision: %v, want none", ws, err)
			}
		}
	})
}

// TestProvisionTokenLastUseRace: 8 provisions race for the last use of a
// token (two relay Services on one store, as two relay processes on one
// database): exactly one gets it, the rest are provision/token_used_up,
// and only one workspace exists.
func TestProvisionTokenLastUseRace(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		svcs := []*Service{New(Config{Store: st, Provisioning: ProvisionToken}), New(Config{Store: st, Provisioning: ProvisionToken})}
		token, _, err := svcs[0].CreateProvisionToken(ctx, 1, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		const n = 8
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				errs[i] = svcs[i%2].Provision(ctx, id(string(rune('a'+i))+" race"), pub(key("genesis")), token)
			}(i)
		}
		close(start)
		wg.Wait()
		won := 0
		for i, err := range errs {
			var we *wire.Error
			switch {
			case err == nil:
				won++
			case errors.As(err, &we) && we.Code == wire.CodeProvisionTokenUsedUp:
			default:
				t.Errorf("provision %d: %v, want success or %s", i, err, wire.CodeProvisionTokenUsedUp)
			}
		}
		held := 0
		for i := 0; i < n; i++ {
			if _, err := viewWorkspace(ctx, st, id(string(rune('a'+i))+" race")); err == nil {
				held++
			}
		}
		if won != 1 || held != 1 {
			t.Fatalf("%d provisions succeeded and %d workspaces exist, want 1 and 1", won, held)
		}
	})
}
