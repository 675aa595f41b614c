package engine

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/wire"
)

// secondDevice gives user's person (of engine first) a second device: a new
// engine whose device key the admin admits to the roster under the same
// user (what pairing will do; issue 13 "A second device").
func secondDevice(t testing.TB, r *testRelay, admin, first *Engine, seed byte) *Engine {
	t.Helper()
	ctx := testCtx(t)
	opts := r.options(t, fmt.Sprintf("second-%d", seed), seed)
	e, err := newEngine(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	devSeed := make([]byte, 32)
	seededRand(seed).Read(devSeed)
	e.meta = meta{Workspace: first.meta.Workspace, Relay: first.meta.Relay, Name: first.meta.Name, User: first.meta.User,
		DeviceSeed: devSeed, Steps: map[string]bool{}, Muted: map[string]bool{}}
	if err := e.initKeys(); err != nil {
		t.Fatal(err)
	}
	e.roster = roster.New(roster.Options{})
	if err := e.persistMeta(ctx); err != nil {
		t.Fatal(err)
	}
	pop, err := roster.DevicePossession(admin.wsID(), identity.UserID(first.meta.User), e.dev)
	if err != nil {
		t.Fatal(err)
	}
	admin.mu.Lock()
	err = admin.appendRoster(ctx, func() (roster.Body, error) {
		return &roster.AdmitDevice{User: identity.UserID(first.meta.User), Device: e.dev.Public(), Possession: pop}, nil
	})
	admin.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Sync(ctx); err != nil { // publishes the access set
		t.Fatal(err)
	}
	return e
}

func readsOnly(t *testing.T, e *Engine, channel string, want ...string) {
	t.Helper()
	ctx := testCtx(t)
	if _, err := e.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ms, err := e.Messages(ctx, channel, 0)
	if err != nil {
		t.Fatalf("%s reads #%s: %v", e.DeviceID().ShortString(), channel, err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Text)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("%s reads %q in #%s, want %q", e.DeviceID().ShortString(), got, channel, want)
	}
}

// spec/channels.md "Explicit groups and the pending add" step 1: adding two
// people with two devices each is one commit, and all four devices read.
func TestAddPeopleIsOneCommit(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 80)
	if _, err := dana.CreateChannel(ctx, "secret", roster.AdmissionExplicit); err != nil {
		t.Fatal(err)
	}
	sam := joinWith(t, r, invite(t, dana), "sam", 81)
	lee := joinWith(t, r, invite(t, dana), "lee", 82)
	sam2 := secondDevice(t, r, dana, sam, 83)
	lee2 := secondDevice(t, r, dana, lee, 84)
	all := []*Engine{sam, sam2, lee, lee2}
	for _, e := range all {
		if _, err := e.Sync(ctx); err != nil { // publishes key packages
			t.Fatal(err)
		}
	}
	g := dana.groups[identity.GroupID(mustHex(t, chanID(t, dana, "secret")))]
	before := g.mls.Epoch()
	res, err := dana.AddPeople(ctx, "secret", []string{sam.meta.User.hex(), lee.meta.User.hex()[:10]})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added) != 4 || len(res.Pending) != 0 {
		t.Fatalf("added %d, pending %d; want 4 added", len(res.Added), len(res.Pending))
	}
	if after := g.mls.Epoch(); after != before+1 {
		t.Fatalf("epoch %d → %d: the add took %d commits, want 1", before, after, after-before)
	}
	if _, err := dana.Send(ctx, "secret", "welcome all"); err != nil {
		t.Fatal(err)
	}
	for _, e := range all {
		readsOnly(t, e, "secret", "welcome all")
	}
	// Adding them again adds nobody.
	if res, err := dana.AddPeople(ctx, "secret", []string{sam.meta.User.hex()}); err != nil || len(res.Added)+len(res.Pending) != 0 {
		t.Fatalf("re-add = %+v, %v", res, err)
	}
	if _, err := dana.AddPeople(ctx, "secret", []string{"00000000"}); !errors.Is(err, ErrUnknownUser) {
		t.Fatalf("unknown user: %v", err)
	}
}

func invite(t testing.TB, e *Engine) string {
	t.Helper()
	link, err := e.CreateInvite(testCtx(t), []string{"general"}, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return link
}

func chanID(t testing.TB, e *Engine, name string) string {
	t.Helper()
	for _, c := range e.Channels() {
		if c.Name == name {
			return c.Group
		}
	}
	t.Fatalf("no channel %s", name)
	return ""
}

// Steps 2–4: an add to a device with no key package on the relay is a
// pending add; another member's client completes it while the adder is
// offline; the added device is told on arrival and reads.
func TestPendingAddCompletedByAnotherMember(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 90)
	if _, err := dana.CreateChannel(ctx, "secret", roster.AdmissionExplicit); err != nil {
		t.Fatal(err)
	}
	lee := joinWith(t, r, invite(t, dana), "lee", 91)
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if res, err := dana.AddMembers(ctx, "secret", []identity.DeviceID{lee.DeviceID()}); err != nil || len(res.Added) != 1 {
		t.Fatalf("adding lee: %+v %v", res, err)
	}
	// Sam has joined but not synced since: no key package on the relay.
	var mu sync.Mutex
	var events []Event
	opts := r.options(t, "sam", 92)
	opts.OnEvent = func(ev Event) { mu.Lock(); events = append(events, ev); mu.Unlock() }
	sam, err := Join(ctx, opts, invite(t, dana))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sam.Close() })
	res, err := dana.AddMembers(ctx, "secret", []identity.DeviceID{sam.DeviceID()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added) != 0 || len(res.Pending) != 1 {
		t.Fatalf("add = %+v, want one pending", res)
	}
	gi, _ := dana.roster.Group(identity.GroupID(mustHex(t, chanID(t, dana, "secret"))))
	if len(gi.Pending) != 1 || gi.Pending[0].Device != sam.DeviceID() || gi.Pending[0].AddedBy != dana.DeviceID() {
		t.Fatalf("roster pending = %+v", gi.Pending)
	}
	if _, err := dana.Send(ctx, "secret", "before sam"); err != nil {
		t.Fatal(err)
	}
	dana.Close() // the adder is offline from here on

	if _, err := sam.Sync(ctx); err != nil { // publishes key packages
		t.Fatal(err)
	}
	if _, err := lee.Sync(ctx); err != nil { // completes the pending add
		t.Fatal(err)
	}
	gi, _ = lee.roster.Group(gi.Policy.Group)
	if len(gi.Pending) != 0 {
		t.Fatalf("still pending after lee's sync: %+v", gi.Pending)
	}
	if _, err := lee.Send(ctx, "secret", "hi sam"); err != nil {
		t.Fatal(err)
	}
	readsOnly(t, sam, "secret", "hi sam")
	mu.Lock()
	defer mu.Unlock()
	told := false
	for _, ev := range events {
		told = told || (ev.Kind == EventAdded && ev.Channel == hexID(gi.Policy.Group).hex())
	}
	if !told {
		t.Fatalf("sam was not told of the add: %+v", events)
	}
}

// spec/channels.md "Limits": 64 pending adds per group; the 65th is refused
// with roster/limit_pending and nothing changes.
func TestSixtyFifthPendingAddRefused(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 95)
	if _, err := dana.CreateChannel(ctx, "secret", roster.AdmissionExplicit); err != nil {
		t.Fatal(err)
	}
	// 65 devices of dana's user that never publish a key package.
	rnd := seededRand(96)
	var devs []identity.DeviceID
	dana.mu.Lock()
	for i := 0; i < 65; i++ {
		seed := make([]byte, 32)
		rnd.Read(seed)
		k, err := identity.PrivateFromSeed[identity.Device](seed)
		if err != nil {
			t.Fatal(err)
		}
		pop, err := roster.DevicePossession(dana.wsID(), identity.UserID(dana.meta.User), k)
		if err != nil {
			t.Fatal(err)
		}
		if err := dana.appendRoster(ctx, func() (roster.Body, error) {
			return &roster.AdmitDevice{User: identity.UserID(dana.meta.User), Device: k.Public(), Possession: pop}, nil
		}); err != nil {
			t.Fatal(err)
		}
		devs = append(devs, identity.DeviceIDOf(k.Public()))
	}
	dana.mu.Unlock()
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := dana.AddMembers(ctx, "secret", devs[:64])
	if err != nil || len(res.Pending) != 64 {
		t.Fatalf("64 pending adds: %d, %v", len(res.Pending), err)
	}
	id := identity.GroupID(mustHex(t, chanID(t, dana, "secret")))
	head := dana.roster.Head()
	_, err = dana.AddMembers(ctx, "secret", devs[64:])
	if !errors.Is(err, roster.ErrLimitPending) {
		t.Fatalf("65th pending add = %v, want roster/limit_pending", err)
	}
	t.Logf("65th: %v", err)
	if dana.roster.Head() != head {
		t.Fatal("the refused add changed the roster")
	}
	if gi, _ := dana.roster.Group(id); len(gi.Pending) != 64 {
		t.Fatalf("%d pending, want 64", len(gi.Pending))
	}
}

// A device whose stock on the relay predates the leaf binding (format 0:
// packages adders refuse) drains it and publishes a bound stock and a
// last-resort package on its next sync; before, it topped up by its local
// count only and was never addable again.
func TestStaleKeyPackageStockIsReplaced(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 100)
	if _, err := dana.CreateChannel(ctx, "secret", roster.AdmissionExplicit); err != nil {
		t.Fatal(err)
	}
	sam := joinWith(t, r, invite(t, dana), "sam", 101)
	// What an older client left: four unbound packages on the relay, their
	// private halves in its store, and no stock format.
	sam.mu.Lock()
	for i := 0; i < keyPackageStock; i++ {
		kp := relayKeyPackage(t, sam.DeviceID(), byte(102+i))
		if _, err := sam.client.PutKeyPackages(ctx, wire.KeyPackageItem{KeyPackage: kp.Message()}); err != nil {
			t.Fatal(err)
		}
		b, _ := kp.Encode()
		if err := sam.db.update(ctx, func(t *txn) error { return t.tx.PutKeyPackage(kp.Ref(), b) }); err != nil {
			t.Fatal(err)
		}
	}
	sam.mu.Unlock()
	if sam.meta.KeyPackages != 0 {
		t.Fatalf("stock format %d before the first sync", sam.meta.KeyPackages)
	}
	if _, err := dana.Sync(ctx); err != nil { // sam's device key in the access set
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if sam.meta.KeyPackages != keyPackageFormat || len(sam.meta.LastResort) != 1 {
		t.Fatalf("after sync: format %d, %d last-resort", sam.meta.KeyPackages, len(sam.meta.LastResort))
	}
	// Every add of sam now gets a bound package: the four one-use ones,
	// then the last-resort one, which stays.
	for i := 0; i < keyPackageStock+2; i++ {
		dana.mu.Lock()
		g := dana.groups[identity.GroupID(mustHex(t, chanID2(dana, "secret")))]
		kp, err := dana.claimFor(ctx, g, sam.DeviceID())
		dana.mu.Unlock()
		if err != nil || kp == nil {
			t.Fatalf("claim %d of sam's packages: %v (nil=%v)", i, err, kp == nil)
		}
	}
	if _, err := dana.AddMembers(ctx, "secret", []identity.DeviceID{sam.DeviceID()}); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Send(ctx, "secret", "by last resort"); err != nil {
		t.Fatal(err)
	}
	readsOnly(t, sam, "secret", "by last resort")
	// The Welcome used the last-resort package: sam keeps its private half
	// and publishes a new one.
	if len(sam.meta.LastResort) != 2 || sam.meta.LastResortUsed {
		t.Fatalf("after the last-resort add: %d last-resort refs, used=%v", len(sam.meta.LastResort), sam.meta.LastResortUsed)
	}
}

func chanID2(e *Engine, name string) string {
	for _, g := range e.roster.Groups() {
		if g.Name == name {
			return hexID(g.Policy.Group).hex()
		}
	}
	return ""
}

// An added device learns of a direct add from the relay's Welcome notice
// (docs/protocol/wire.md "Welcome notices"), with no poll: while its client
// runs, by the pushed EVENT_WELCOME (Run syncs only hourly by itself, and a
// direct add changes no roster); after being offline, at its next sync.
// Each reads the one log its notice names, and the notice is then cleared.
func TestAddedDeviceLearnsFromWelcomeNotice(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 240)
	for _, ch := range []string{"live", "later"} {
		if _, err := dana.CreateChannel(ctx, ch, roster.AdmissionExplicit); err != nil {
			t.Fatal(err)
		}
	}
	sam := joinWith(t, r, invite(t, dana), "sam", 241)
	lee := joinWith(t, r, invite(t, dana), "lee", 242)
	for _, e := range []*Engine{sam, lee} {
		if _, err := e.Sync(ctx); err != nil { // publishes key packages
			t.Fatal(err)
		}
	}
	stop := runEngine(t, sam)
	defer stop()
	// Sam's Run is past its first sync once it shows a message sent now.
	if _, err := dana.Send(ctx, "general", "ping"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "sam reads the ping", func() bool {
		ms, err := sam.Messages(ctx, "general", 0)
		return err == nil && len(ms) > 0 && ms[len(ms)-1].Text == "ping"
	})
	// Connected: the push.
	if res, err := dana.AddMembers(ctx, "live", []identity.DeviceID{sam.DeviceID()}); err != nil || len(res.Added) != 1 {
		t.Fatalf("adding sam: %+v %v", res, err)
	}
	if _, err := dana.Send(ctx, "live", "now"); err != nil {
		t.Fatal(err)
	}
	waitRead(t, sam, "live", "now")

	// Offline (lee runs no client): the notice waits at the relay.
	if res, err := dana.AddMembers(ctx, "later", []identity.DeviceID{lee.DeviceID()}); err != nil || len(res.Added) != 1 {
		t.Fatalf("adding lee: %+v %v", res, err)
	}
	if _, err := dana.Send(ctx, "later", "while away"); err != nil {
		t.Fatal(err)
	}
	lee.mu.Lock()
	notices, err := lee.client.Welcomes(ctx)
	lee.mu.Unlock()
	if err != nil || len(notices) != 1 || notices[0].Group != wire.ID(mustHex(t, chanID(t, dana, "later"))) {
		t.Fatalf("lee's notices = %+v, %v", notices, err)
	}
	readsOnly(t, lee, "later", "while away")
	lee.mu.Lock()
	notices, err = lee.client.Welcomes(ctx)
	lee.mu.Unlock()
	if err != nil || len(notices) != 0 {
		t.Fatalf("lee's notices after joining = %+v, %v", notices, err)
	}
}

// TestAddedWhileAwayToManyChannels: Lee, away, is added to more private
// channels than one page of Welcome notices holds; one sync takes every
// page, so he is in all of them, and none of his notices is left.
func TestAddedWhileAwayToManyChannels(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("adds to 66 channels")
	}
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 245)
	lee := joinWith(t, r, invite(t, dana), "lee", 246)
	if _, err := lee.Sync(ctx); err != nil { // publishes key packages
		t.Fatal(err)
	}
	n := wire.MaxWelcomes + 2
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("away-%02d", i)
		if _, err := dana.CreateChannel(ctx, name, roster.AdmissionExplicit); err != nil {
			t.Fatal(err)
		}
		if res, err := dana.AddMembers(ctx, name, []identity.DeviceID{lee.DeviceID()}); err != nil || len(res.Added) != 1 {
			t.Fatalf("adding lee to %s: %+v %v", name, res, err)
		}
	}
	if _, err := dana.Send(ctx, fmt.Sprintf("away-%02d", n-1), "last one"); err != nil {
		t.Fatal(err)
	}
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	in := 0
	for i := 0; i < n; i++ {
		if lee.member(identity.GroupID(mustHex(t, chanID(t, dana, fmt.Sprintf("away-%02d", i))))) {
			in++
		}
	}
	if in != n {
		t.Fatalf("after one sync lee is in %d of the %d channels he was added to", in, n)
	}
	readsOnly(t, lee, fmt.Sprintf("away-%02d", n-1), "last one")
	lee.mu.Lock()
	notices, err := lee.client.Welcomes(ctx)
	lee.mu.Unlock()
	if err != nil || len(notices) != 0 {
		t.Fatalf("lee's notices after the sync = %+v, %v", notices, err)
	}
}
