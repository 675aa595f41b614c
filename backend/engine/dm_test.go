package engine

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"weald/backend/identity"
	"weald/backend/mls"
	"weald/backend/roster"
)

// dmPair is a workspace of Dana (its creator) and Sam, both synced (so both
// have key packages on the relay). hook, when set, is each engine's Crash
// option.
func dmPair(t *testing.T, hook func(step string) error) (r *testRelay, dana, sam *Engine) {
	t.Helper()
	r = startRelay(t)
	ctx := testCtx(t)
	do := r.options(t, "dana", 130)
	do.Crash = hook
	dana, err := CreateWorkspace(ctx, do, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dana.Close() })
	so := r.options(t, "sam", 131)
	so.Crash = hook
	sam, err = Join(ctx, so, invite(t, dana))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sam.Close() })
	for _, e := range []*Engine{sam, dana} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return r, dana, sam
}

// flush syncs e and sends its outbox until nothing waits (bounded).
func flush(t *testing.T, e *Engine) {
	t.Helper()
	for i := 0; i < 10; i++ {
		n, err := e.FlushOutbox(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
	t.Fatalf("%s: messages still wait after 10 flushes", e.DeviceID().ShortString())
}

func dmGroups(e *Engine) []roster.GroupInfo {
	var out []roster.GroupInfo
	for _, gi := range e.roster.Groups() {
		if gi.Policy.Kind == roster.KindDM {
			out = append(out, gi)
		}
	}
	return out
}

// spec/channels.md, the DM paragraph of "Explicit groups and the pending
// add": two people who start a DM at the same moment (both have read the
// roster without it, then both append) end in one group, decided by the
// roster head; the loser adopts the winner's group and its message goes
// into it; both read both messages.
func TestSimultaneousDMIsOneGroup(t *testing.T) {
	t.Parallel()
	var ready sync.WaitGroup
	ready.Add(2)
	release := make(chan struct{})
	var once sync.Once
	hook := func(step string) error {
		if step == "dm_start" {
			ready.Done()
			once.Do(func() { go func() { ready.Wait(); close(release) }() })
			<-release
		}
		return nil
	}
	_, dana, sam := dmPair(t, hook)
	ctx := testCtx(t)
	var wg sync.WaitGroup
	res := make([]DMResult, 2)
	errs := make([]error, 2)
	wg.Add(2)
	go func() { defer wg.Done(); res[0], errs[0] = dana.SendDM(ctx, sam.meta.User.hex(), "hi sam") }()
	go func() { defer wg.Done(); res[1], errs[1] = sam.SendDM(ctx, dana.meta.User.hex(), "hi dana") }()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("start %d: %v", i, err)
		}
	}
	if res[0].Created == res[1].Created {
		t.Fatalf("created = %v and %v: exactly one side must have recorded the DM", res[0].Created, res[1].Created)
	}
	if res[0].Channel != res[1].Channel {
		t.Fatalf("two DM ids: %s and %s", res[0].Channel, res[1].Channel)
	}
	loser := res[0]
	if loser.Created {
		loser = res[1]
	}
	if loser.Message.State != OutboxPending {
		t.Logf("the loser was added before it sent (state %q)", loser.Message.State)
	}
	flush(t, dana)
	flush(t, sam)
	flush(t, dana)
	for _, e := range []*Engine{dana, sam} {
		if n := len(dmGroups(e)); n != 1 {
			t.Fatalf("%s sees %d DM groups, want 1", e.DeviceID().ShortString(), n)
		}
	}
	// Each message once, in the order the two sends happened (which side
	// won decides which went first).
	readsSorted(t, dana, "@"+sam.meta.User.hex(), "hi dana", "hi sam")
	readsSorted(t, sam, "@"+dana.meta.User.hex(), "hi dana", "hi sam")
	// Both devices are in the one MLS group.
	g := dana.groups[identity.GroupID(mustHex(t, res[0].Channel))]
	if in := dana.groupDevices(g); !in[dana.DeviceID()] || !in[sam.DeviceID()] || len(in) != 2 {
		t.Fatalf("DM members = %v", in)
	}
}

// A later message goes straight into the DM; the DM lists under Channels
// with its peer; a DM with oneself and a read of a DM never started are
// refused with their codes.
func TestDMListAndRefusals(t *testing.T) {
	t.Parallel()
	_, dana, sam := dmPair(t, nil)
	ctx := testCtx(t)
	if _, err := dana.Messages(ctx, "@"+sam.meta.User.hex(), 0); !errors.Is(err, ErrNoDM) {
		t.Fatalf("read before any DM: %v", err)
	}
	r, err := dana.SendDM(ctx, sam.meta.User.hex()[:10], "first")
	if err != nil || !r.Created || r.Message.State != "" {
		t.Fatalf("first DM = %+v, %v", r, err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	r2, err := sam.SendDM(ctx, dana.meta.User.hex(), "reply")
	if err != nil || r2.Created || r2.Message.State != "" || r2.Channel != r.Channel {
		t.Fatalf("reply = %+v, %v", r2, err)
	}
	readsOnly(t, dana, "@"+sam.meta.User.hex(), "first", "reply")
	var found bool
	for _, c := range sam.Channels() {
		if c.Kind == "dm" {
			found = c.Peer == dana.meta.User.hex() && c.Member && c.Group == r.Channel
		}
	}
	if !found {
		t.Fatalf("sam's channels list no DM with dana: %+v", sam.Channels())
	}
	if _, err := dana.SendDM(ctx, dana.meta.User.hex(), "me"); !errors.Is(err, ErrDMSelf) {
		t.Fatalf("DM to self: %v", err)
	}
}

// readsSorted is readsOnly with the messages compared as a sorted list.
func readsSorted(t *testing.T, e *Engine, channel string, want ...string) {
	t.Helper()
	ms, err := e.Messages(testCtx(t), channel, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Text)
	}
	slices.Sort(got)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("%s reads %q in %s, want %q", e.DeviceID().ShortString(), got, channel, want)
	}
}

// From the attacker's side: a DM member whose client skips the adder's
// check commits an Add of a third person's device into the DM. The other
// person's client refuses the commit (never merged: its epoch stays, the
// third device is not in its tree) with a dm/third_party alert.
func TestDMRefusesThirdPartyAdd(t *testing.T) {
	t.Parallel()
	r, dana, sam := dmPair(t, nil)
	ctx := testCtx(t)
	res, err := dana.SendDM(ctx, sam.meta.User.hex(), "just us")
	if err != nil {
		t.Fatal(err)
	}
	readsOnly(t, sam, "@"+dana.meta.User.hex(), "just us")
	lee := joinWith(t, r, invite(t, dana), "lee", 132)
	for _, e := range []*Engine{lee, dana} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	id := identity.GroupID(mustHex(t, res.Channel))
	sg := sam.groups[id]
	before := sg.mls.Epoch()
	dana.mu.Lock()
	g := dana.groups[id]
	kp, err := dana.claimFor(ctx, g, lee.DeviceID())
	if err == nil {
		err = dana.commit(ctx, g, mls.CommitOptions{Add: [][]byte{kp}, RatchetTreeInWelcome: true})
	}
	dana.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if after := sg.mls.Epoch(); after != before {
		t.Fatalf("sam merged the commit: epoch %d → %d", before, after)
	}
	if in := sam.groupDevices(sg); in[lee.DeviceID()] {
		t.Fatal("lee's device is in sam's DM tree")
	}
	var alerted bool
	for _, a := range sam.Status().Alerts {
		alerted = alerted || (a.Code == "dm/third_party" && a.Actor == dana.DeviceID().String())
	}
	if !alerted {
		t.Fatalf("no dm/third_party alert naming dana: %+v", sam.Status().Alerts)
	}
}
