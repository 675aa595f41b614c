package relay

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"weald/backend/internal/pgtest"
	"weald/backend/relay/store"
	"weald/backend/relay/store/storetest"
	"weald/backend/wire"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// engines runs fn once per store engine: SQLite in a temp dir and a fresh
// database on the throwaway PostgreSQL cluster.
func engines(t *testing.T, fn func(t *testing.T, st store.Store)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, openSQLite(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, openPostgres(t)) })
}

func openSQLite(t testing.TB) store.Store {
	t.Helper()
	st, err := store.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "relay.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func openPostgres(t testing.TB) store.Store {
	t.Helper()
	return storetest.Postgres(t)
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func key(name string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("relay test key " + name))
	return ed25519.NewKeyFromSeed(seed[:])
}

func pub(k ed25519.PrivateKey) []byte { return k.Public().(ed25519.PublicKey) }

func id(name string) wire.ID { return sha256.Sum256([]byte("relay test id " + name)) }

type chainKey struct{ author, group wire.ID }

type chain struct {
	ctr  uint64
	prev wire.ID
}

// fixture is one provisioned workspace whose first access set has alice
// (admin, user u1), bob (user u2), an agent and a recovery key.
type fixture struct {
	t      testing.TB
	ctx    context.Context
	st     store.Store
	svc    *Service
	clock  *fakeClock
	ws     wire.ID
	gen    ed25519.PrivateKey
	set    wire.AccessSet
	chains map[chainKey]chain
	groups map[wire.ID]bool
}

type fixtureOpt func(*Config)

func withBudget(n uint64) fixtureOpt        { return func(c *Config) { c.MaxLogBytes = n } }
func withRetentionDays(n uint32) fixtureOpt { return func(c *Config) { c.RetentionDays = n } }

func newFixture(t testing.TB, st store.Store, opts ...fixtureOpt) *fixture {
	t.Helper()
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	cfg := Config{Store: st, Clock: clock.now}
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	f := &fixture{t: t, ctx: ctx, st: st, svc: New(cfg), clock: clock, ws: id("ws " + t.Name()),
		gen: key("genesis " + t.Name()), chains: map[chainKey]chain{}, groups: map[wire.ID]bool{}}
	if err := f.svc.ProvisionWorkspace(ctx, f.ws, pub(f.gen)); err != nil {
		t.Fatal(err)
	}
	set := f.newSet(1, devices("alice", "bob"), "agent", "recovery")
	wire.SignAccessSet(&set, f.gen)
	if _, err := f.svc.Publish(ctx, f.ws, set); err != nil {
		t.Fatalf("genesis access set: %v", err)
	}
	f.set = set
	return f
}

type dev struct {
	name  string
	user  string
	admin bool
}

// devices makes device entries; the first is an admin.
func devices(names ...string) []dev {
	out := make([]dev, len(names))
	for i, n := range names {
		out[i] = dev{name: n, user: "user " + n, admin: i == 0}
	}
	return out
}

func (f *fixture) newSet(version uint64, devs []dev, agent, recovery string, grants ...string) wire.AccessSet {
	s := wire.AccessSet{Workspace: f.ws, Version: version}
	for _, d := range devs {
		s.Devices = append(s.Devices, wire.DeviceKey{Pub: pub(key(d.name)), User: id(d.user), Admin: d.admin})
	}
	if agent != "" {
		s.Agents = [][]byte{pub(key(agent))}
	}
	if recovery != "" {
		s.Recovery = [][]byte{pub(key(recovery))}
	}
	for _, g := range grants {
		s.Grants = append(s.Grants, grantOf(g))
	}
	return s
}

// grantKey is the grant key of the invite named g; grantOf its grant.
func grantKey(g string) ed25519.PrivateKey { return key("grant " + g) }
func grantOf(g string) wire.ID             { return wire.ID(pub(grantKey(g))) }

func principal(name string) wire.AuthOK {
	return wire.AuthOK{Kind: wire.PrincipalDevice, Principal: wire.KeyID(pub(key(name)))}
}

// next makes the next envelope of author in group and advances the local
// chain (as a client does once the relay acks).
func (f *fixture) next(author string, group wire.ID, kind wire.Kind, ct []byte) wire.Envelope {
	k := key(author)
	ck := chainKey{wire.KeyID(pub(k)), group}
	c := f.chains[ck]
	e := wire.Envelope{Group: group, Kind: kind, Ctr: c.ctr + 1, Prev: c.prev, CT: ct}
	wire.SignEnvelope(&e, k)
	f.chains[ck] = chain{ctr: e.Ctr, prev: e.Hash()}
	f.groups[group] = true
	return e
}

// saveChains copies the local chain state, to undo f.next calls whose
// envelopes the relay refused.
func (f *fixture) saveChains() map[chainKey]chain {
	m := make(map[chainKey]chain, len(f.chains))
	for k, v := range f.chains {
		m[k] = v
	}
	return m
}

func (f *fixture) restoreChains(m map[chainKey]chain) {
	f.chains = make(map[chainKey]chain, len(m))
	for k, v := range m {
		f.chains[k] = v
	}
}

// mk makes an envelope with an explicit place in the chain.
func mk(author string, group wire.ID, kind wire.Kind, ct []byte, ctr uint64, prev wire.ID) wire.Envelope {
	e := wire.Envelope{Group: group, Kind: kind, Ctr: ctr, Prev: prev, CT: ct}
	wire.SignEnvelope(&e, key(author))
	return e
}

func (f *fixture) send(as string, envs ...wire.Envelope) ([]wire.AckItem, error) {
	acks, _, err := f.svc.Send(f.ctx, f.ws, principal(as), envs)
	return acks, err
}

func (f *fixture) mustSend(as string, envs ...wire.Envelope) []wire.AckItem {
	f.t.Helper()
	acks, err := f.send(as, envs...)
	if err != nil {
		f.t.Fatalf("send: %v", err)
	}
	return acks
}

// state renders everything a client can observe of the workspace, to check
// that a refused request changed nothing.
func (f *fixture) state() string {
	f.t.Helper()
	var b strings.Builder
	st, err := f.svc.Stats(f.ctx, f.ws)
	if err != nil {
		f.t.Fatal(err)
	}
	fmt.Fprintf(&b, "stats %+v\n", *st)
	set, err := f.svc.AccessSet(f.ctx, f.ws)
	if err != nil {
		f.t.Fatal(err)
	}
	fmt.Fprintf(&b, "access %d\n", set.Version)
	ro, err := f.svc.RosterFetch(f.ctx, f.ws, 0, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	fmt.Fprintf(&b, "roster %d %s %d\n", ro.HeadIndex, ro.Head.Short(), len(ro.Ops))
	for g := range f.groups {
		out, err := f.svc.Fetch(f.ctx, f.ws, g, 0, MaxFetchLimit)
		if err != nil {
			f.t.Fatal(err)
		}
		var keys []store.RetentionKey
		var pol store.Policy
		var row store.Group
		err = f.st.View(f.ctx, func(tx store.Tx) error {
			var err error
			if keys, err = tx.RetentionKeys(f.ctx, f.ws, g); err != nil {
				return err
			}
			if pol, err = tx.LatestPolicy(f.ctx, f.ws, g); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			row, err = tx.Group(f.ctx, f.ws, g)
			if errors.Is(err, store.ErrNotFound) {
				err = nil
			}
			return err
		})
		if err != nil {
			f.t.Fatal(err)
		}
		fmt.Fprintf(&b, "group %s head %d dropped %d keys %d policy %d frozen %v:", g.Short(), out.HeadSeq, out.DroppedBelow,
			len(keys), pol.Version, row.RetentionFrozen)
		for _, e := range out.Envelopes {
			h := e.Envelope.Hash()
			fmt.Fprintf(&b, " %d/%s", e.Seq, h.Short())
		}
		b.WriteString("\n")
	}
	// Sort-independent: map iteration order varies, so sort the lines.
	lines := strings.Split(b.String(), "\n")
	sortStrings(lines)
	return strings.Join(lines, "\n")
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// wantCode checks that err is a *wire.Error with code.
func wantCode(t testing.TB, err error, code wire.Code) *wire.Error {
	t.Helper()
	var we *wire.Error
	if !errors.As(err, &we) {
		t.Fatalf("err = %v, want %s", err, code)
	}
	if we.Code != code {
		t.Fatalf("code = %s (%v), want %s", we.Code, we, code)
	}
	if we.Sentence == "" {
		t.Errorf("%s has no sentence", code)
	}
	return we
}

// refused checks that fn fails with code and changes no observable state.
func (f *fixture) refused(code wire.Code, fn func() error) *wire.Error {
	f.t.Helper()
	before := f.state()
	we := wantCode(f.t, fn(), code)
	if after := f.state(); after != before {
		f.t.Fatalf("%s changed state:\nbefore:\n%s\nafter:\n%s", code, before, after)
	}
	return we
}

// testHost is the host the relay tests' clients say they dialled.
const testHost = "relay.test"

// bind is the challenge a client answers on svc: nonce in ws at svc's
// relay id, dialled at testHost.
func bind(svc *Service, ws, nonce wire.ID) wire.AuthBinding {
	id, err := svc.RelayID(context.Background())
	if err != nil {
		panic(err)
	}
	return wire.AuthBinding{Workspace: ws, Nonce: nonce, Relay: id, Host: testHost}
}
