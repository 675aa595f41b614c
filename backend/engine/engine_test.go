package engine

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"weald/backend/relay"
	"weald/backend/relay/relaytest"
	"weald/backend/relay/server"
	"weald/backend/roster"
	"weald/backend/wire"
)

// testRelay is a real relay (relaytest) with the engine's provisioning hook.
type testRelay struct {
	URL     string
	svc     *relay.Service
	metrics *server.Metrics

	seeds seedBook
}

// seedBook records which engine of one relay each seed's keys went to. Two
// engines of one relay on one seed would have the same keys and break each
// other's joins in ways hard to trace, so a second take of a seed fails.
type seedBook struct {
	mu    sync.Mutex
	names map[byte]string
}

func (b *seedBook) take(t testing.TB, name string, seed byte) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if had, ok := b.names[seed]; ok {
		t.Fatalf("seed %d is %s's already; %s needs another", seed, had, name)
	}
	if b.names == nil {
		b.names = map[byte]string{}
	}
	b.names[seed] = name
}

// requests is how many requests the relay has handled, by frame name.
func (r *testRelay) requests(t testing.TB) map[string]uint64 {
	t.Helper()
	fams, err := r.metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]uint64{}
	for _, f := range fams {
		if f.GetName() != "weald_relay_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "frame" {
					out[l.GetValue()] += uint64(m.GetCounter().GetValue())
				}
			}
		}
	}
	return out
}

func startRelay(t testing.TB) *testRelay { return startRelayWith(t, relay.Config{}) }

// startRelayWith starts a test relay with cfg (its Store is filled in).
func startRelayWith(t testing.TB, cfg relay.Config) *testRelay {
	t.Helper()
	r := relaytest.StartWith(t, cfg)
	return &testRelay{URL: r.URL, svc: r.Service, metrics: r.Metrics}
}

func (r *testRelay) provision(ctx context.Context, _ string, ws wire.ID, gen []byte) error {
	return r.svc.ProvisionWorkspace(ctx, ws, gen)
}

type lockedRand struct {
	mu sync.Mutex
	r  *rand.ChaCha8
}

func (l *lockedRand) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(p)
}

func seededRand(seed byte) *lockedRand { return &lockedRand{r: rand.NewChaCha8([32]byte{seed})} }

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// options are the options of a new engine called name whose keys come from
// seed, one no other engine of this relay has (seedBook).
func (r *testRelay) options(t testing.TB, name string, seed byte) Options {
	t.Helper()
	r.seeds.take(t, name, seed)
	return Options{Dir: filepath.Join(t.TempDir(), name), Rand: seededRand(seed), Provision: r.provision}
}

func createWorkspace(t testing.TB, r *testRelay, seed byte) *Engine {
	t.Helper()
	e, err := CreateWorkspace(testCtx(t), r.options(t, "creator", seed), "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// createSynced creates a workspace with opts and syncs it once.
func createSynced(t testing.TB, r *testRelay, opts Options) *Engine {
	t.Helper()
	e, err := CreateWorkspace(testCtx(t), opts, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if _, err := e.Sync(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestFreshWorkspace(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	e := createWorkspace(t, r, 1)
	if !e.Ready() {
		t.Fatal("not ready after bootstrap")
	}
	chans := e.Channels()
	if len(chans) != 3 {
		t.Fatalf("want root, #general, #activity; got %+v", chans)
	}
	want := []struct {
		name, kind, adm string
		muted           bool
	}{{"Acme", "ws", "everyone", false}, {"general", "chan", "parent", false}, {"activity", "chan", "parent", true}}
	for i, w := range want {
		c := chans[i]
		if c.Name != w.name || c.Kind != w.kind || c.Admission != w.adm || c.History != "open" || !c.Default || !c.Member || c.Muted != w.muted {
			t.Errorf("channel %d = %+v, want %+v", i, c, w)
		}
	}
	ctx := testCtx(t)
	if _, err := e.Send(ctx, "general", "hello, world"); err != nil {
		t.Fatal(err)
	}
	ms, err := e.Messages(ctx, "#general", 10)
	if err != nil || len(ms) != 1 || ms[0].Text != "hello, world" {
		t.Fatalf("messages %+v, %v", ms, err)
	}
}

func TestBootstrapResumesAfterCrashAtEachStep(t *testing.T) {
	t.Parallel()
	steps := []string{StepKeys, StepProvision, StepGenesisSet, StepRoster, StepRoot, StepAccessSet, StepGeneral, StepActivity}
	for i, step := range steps {
		t.Run(step, func(t *testing.T) {
			r := startRelay(t)
			opts := r.options(t, "creator", byte(10+i))
			crash := errors.New("simulated crash")
			opts.Crash = func(s string) error {
				if s == step {
					return crash
				}
				return nil
			}
			ctx := testCtx(t)
			e, err := CreateWorkspace(ctx, opts, "Acme", r.URL)
			if !errors.Is(err, crash) {
				t.Fatalf("create: %v", err)
			}
			ws := e.WorkspaceID()
			e.Close()
			opts.Crash = nil
			e, err = Open(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if e.Ready() && step != StepActivity {
				t.Fatal("ready before resuming")
			}
			if _, err := e.Sync(ctx); err != nil {
				t.Fatalf("resume: %v", err)
			}
			if !e.Ready() || e.WorkspaceID() != ws {
				t.Fatal("not ready after resume")
			}
			chans := e.Channels()
			if len(chans) != 3 {
				t.Fatalf("%d groups after resume: %+v", len(chans), chans)
			}
			wsID := e.wsID()
			ids := []string{hexID(roster.RootGroupID(wsID)).hex(), hexID(roster.GeneralGroupID(wsID)).hex(), hexID(roster.ActivityGroupID(wsID)).hex()}
			for j, c := range chans {
				if c.Group != ids[j] {
					t.Errorf("group %d id %s, want %s", j, c.Group, ids[j])
				}
			}
			if _, err := e.Send(ctx, "general", "after resume"); err != nil {
				t.Fatal(err)
			}
			// A second resume changes nothing.
			if _, err := e.Sync(ctx); err != nil || len(e.Channels()) != 3 {
				t.Fatalf("second sync: %v, %d groups", err, len(e.Channels()))
			}
		})
	}
}

func joinWith(t testing.TB, r *testRelay, link, name string, seed byte) *Engine {
	t.Helper()
	e, err := Join(testCtx(t), r.options(t, name, seed), link)
	if err != nil {
		t.Fatalf("join %s: %v", name, err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestInviteAndStories(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	dana := createWorkspace(t, r, 30)
	ctx := testCtx(t)
	if _, err := dana.Send(ctx, "general", "welcome"); err != nil {
		t.Fatal(err)
	}
	link, err := dana.CreateInvite(ctx, []string{"general"}, roster.RoleMember, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	// Monday: Sam joins with #general in scope and reads it.
	sam := joinWith(t, r, link, "sam", 31)
	if !sam.Ready() {
		t.Fatalf("sam not ready: %+v", sam.Channels())
	}
	ms, err := sam.Messages(ctx, "general", 0)
	if err != nil || len(ms) != 1 || ms[0].Text != "welcome" {
		t.Fatalf("sam reads %+v, %v", ms, err)
	}
	if n, err := sam.Unread(ctx, "general"); err != nil || n != 1 {
		t.Fatalf("unread %d, %v", n, err)
	}
	if err := sam.MarkRead(ctx, "general", ms[0].Time); err != nil {
		t.Fatal(err)
	}
	if n, _ := sam.Unread(ctx, "general"); n != 0 {
		t.Fatalf("unread after MarkRead: %d", n)
	}
	// Tuesday: Dana creates #design and goes offline; Sam's next sync joins it.
	if _, err := dana.CreateChannel(ctx, "design", roster.AdmissionParent); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Send(ctx, "design", "first design note"); err != nil {
		t.Fatal(err)
	}
	dana.Close()
	rep, err := sam.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Joined.Joined) != 1 {
		t.Fatalf("sync joined %+v", rep.Joined)
	}
	ms, err = sam.Messages(ctx, "design", 0)
	if err != nil || len(ms) != 1 {
		t.Fatalf("sam reads design: %+v %v", ms, err)
	}
	if _, err := sam.Send(ctx, "design", "reply from sam"); err != nil {
		t.Fatal(err)
	}
	if a := sam.Status().Alerts; len(a) != 0 {
		t.Fatalf("legitimate joins raised alerts: %+v", a)
	}
	// Defaults can be renamed and reordered; archive/delete are refused by the roster.
	if err := sam.RenameChannel(ctx, "general", "everyone"); err == nil {
		t.Fatal("a member renamed a default channel it did not create")
	}
	dana2, err := Open(ctx, Options{Dir: dana.opts.Dir, Rand: seededRand(39)})
	if err != nil {
		t.Fatal(err)
	}
	defer dana2.Close()
	if err := dana2.RenameChannel(ctx, "general", "everyone"); err != nil {
		t.Fatal(err)
	}
	if err := dana2.ReorderChannel(ctx, "everyone", 7); err != nil {
		t.Fatal(err)
	}
	if _, err := dana2.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if a := dana2.Status().Alerts; len(a) != 0 {
		t.Fatalf("legitimate joins raised alerts at the inviter: %+v", a)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range sam.Channels() {
		if c.Name == "everyone" && c.Default && c.Position == 7 {
			found = true
		}
	}
	if !found {
		t.Fatalf("rename/reorder not seen: %+v", sam.Channels())
	}
}

// inviteAndJoin has inviter make a member invite lasting an hour and a
// new device named name (key seed) join with it.
func inviteAndJoin(t testing.TB, r *testRelay, inviter *Engine, name string, seed byte) *Engine {
	t.Helper()
	link, err := inviter.CreateInvite(testCtx(t), nil, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return joinWith(t, r, link, name, seed)
}
