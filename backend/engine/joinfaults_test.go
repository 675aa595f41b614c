package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"weald/backend/relay"
	"weald/backend/relay/server"
	"weald/backend/relay/store"
	"weald/backend/roster"
	"weald/backend/wire"
)

// faultRelay is a real relay that can be restarted on the same address and
// store, behind a TCP proxy on 127.0.0.1 that can drop every connection.
type faultRelay struct {
	mu    sync.Mutex
	path  string
	addr  string // the relay's own listener
	svc   *relay.Service
	srv   *server.Server
	hs    *http.Server
	st    store.Store
	proxy net.Listener
	conns map[net.Conn]bool
	URL   string // through the proxy
	// appendFault, when set, runs once around the next ROSTER_APPEND:
	// before the relay records it (landed false) or after, before its
	// answer is written (landed true).
	appendFault func(landed bool)
	faultAfter  bool
	down        bool // the network is down: the proxy closes what it accepts
	seeds       seedBook
	hold        *heldSend // armed: the next SEND it matches is held
	held        *heldSend // caught: written by landHeld
}

// heldSend is a SEND the relay writes late: the client's connection drops
// without an answer, and the relay writes the batch only when landHeld
// runs (or the same author next sends into the group), as a relay slow
// under load can still be writing a SEND whose client has given up.
type heldSend struct {
	match  func(envs []wire.Envelope) bool
	caught func()
	write  func()
	author wire.ID
	group  wire.ID
	landed chan struct{}
}

// holdNextSend arms a heldSend for the next SEND match accepts; caught runs
// once it is held. The returned channel closes once it is written.
func (r *faultRelay) holdNextSend(match func(envs []wire.Envelope) bool, caught func()) chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hold = &heldSend{match: match, caught: caught, landed: make(chan struct{})}
	return r.hold.landed
}

// landHeld writes the held SEND, if any.
func (r *faultRelay) landHeld() {
	r.mu.Lock()
	h := r.held
	r.held = nil
	r.mu.Unlock()
	if h != nil {
		h.write()
		close(h.landed)
	}
}

func (s faultService) Send(ctx context.Context, ws wire.ID, p server.Principal, envs []wire.Envelope) ([]wire.AckItem, []wire.SeqEnvelope, error) {
	s.r.mu.Lock()
	h, next := s.r.hold, s.r.held
	if h != nil && len(envs) > 0 && h.match(envs) {
		s.r.hold = nil
		h.author, h.group = envs[0].Author, envs[0].Group
		h.write = func() { s.Service.Send(context.Background(), ws, p, envs) }
		s.r.held = h
	} else {
		h = nil
	}
	s.r.mu.Unlock()
	if h != nil {
		h.caught()
		s.r.drop()
		return nil, nil, errors.New("injected: the connection dropped before the answer")
	}
	if next != nil && len(envs) > 0 && envs[0].Author == next.author && envs[0].Group == next.group {
		s.r.landHeld() // the first SEND is written before the same author's next one
	}
	return s.Service.Send(ctx, ws, p, envs)
}

// faultService is the relay service with the fault relay's append hook.
type faultService struct {
	*relay.Service
	r *faultRelay
}

func (s faultService) RosterAppend(ctx context.Context, ws wire.ID, p server.Principal, expected wire.ID, op []byte) (*wire.RosterAppended, error) {
	s.r.mu.Lock()
	f, after := s.r.appendFault, s.r.faultAfter
	s.r.appendFault = nil
	s.r.mu.Unlock()
	if f != nil && !after {
		f(false)
		return nil, errors.New("injected: the relay went away")
	}
	res, err := s.Service.RosterAppend(ctx, ws, p, expected, op)
	if f != nil {
		f(true)
	}
	return res, err
}

// failNextAppend arms f around the next roster append (see appendFault).
func (r *faultRelay) failNextAppend(after bool, f func(landed bool)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.appendFault, r.faultAfter = f, after
}

func startFaultRelay(t *testing.T) *faultRelay {
	t.Helper()
	r := &faultRelay{path: filepath.Join(t.TempDir(), "relay.db"), conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	if err := r.serve(ln); err != nil {
		t.Fatal(err)
	}
	if r.proxy, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	r.URL = "ws://" + r.proxy.Addr().String() + "/v1/ws"
	go r.forward()
	t.Cleanup(func() {
		r.proxy.Close()
		r.drop()
		r.mu.Lock()
		r.stopLocked()
		r.mu.Unlock()
	})
	return r
}

func (r *faultRelay) serve(ln net.Listener) error {
	st, err := store.OpenSQLite(context.Background(), r.path)
	if err != nil {
		return err
	}
	r.st, r.svc = st, relay.New(relay.Config{Store: st})
	r.srv = server.New(server.Config{Backend: faultService{r.svc, r}})
	r.hs = &http.Server{Handler: r.srv}
	go r.hs.Serve(ln)
	return nil
}

func (r *faultRelay) stopLocked() {
	r.hs.Close()
	r.srv.Close()
	r.st.Close()
}

// restart stops the relay (every connection ends, the store is closed) and
// starts a new one on the same address and database.
func (r *faultRelay) restart() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopLocked()
	for i := 0; ; i++ {
		ln, err := net.Listen("tcp", r.addr)
		if err == nil {
			return r.serve(ln)
		}
		if i == 100 {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// cut takes the network down (every connection closed, new ones refused)
// until mend.
func (r *faultRelay) cut() {
	r.mu.Lock()
	r.down = true
	r.mu.Unlock()
	r.drop()
}

func (r *faultRelay) mend() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.down = false
}

// drop closes every proxied connection (both directions).
func (r *faultRelay) drop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for c := range r.conns {
		c.Close()
		delete(r.conns, c)
	}
}

func (r *faultRelay) forward() {
	for {
		c, err := r.proxy.Accept()
		if err != nil {
			return
		}
		r.mu.Lock()
		down := r.down
		r.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", r.addr)
		if err != nil {
			c.Close()
			continue
		}
		r.mu.Lock()
		r.conns[c], r.conns[up] = true, true
		r.mu.Unlock()
		go func() { io.Copy(up, c); up.Close(); c.Close() }()
		go func() { io.Copy(c, up); up.Close(); c.Close() }()
	}
}

func (r *faultRelay) provision(ctx context.Context, _ string, ws wire.ID, gen []byte) error {
	r.mu.Lock()
	svc := r.svc
	r.mu.Unlock()
	return svc.ProvisionWorkspace(ctx, ws, gen)
}

func (r *faultRelay) options(t *testing.T, name string, seed byte) Options {
	t.Helper()
	r.seeds.take(t, name, seed)
	return Options{Dir: filepath.Join(t.TempDir(), name), Rand: seededRand(seed), Provision: r.provision}
}

// injector fires one fault the first time the running client reaches a step.
type injector struct {
	mu    sync.Mutex
	step  string
	fault func() error
	fired chan struct{}
}

func (in *injector) arm(step string, fault func() error) chan struct{} {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.step, in.fault, in.fired = step, fault, make(chan struct{})
	return in.fired
}

func (in *injector) crash(step string) error {
	in.mu.Lock()
	if step != in.step || in.fault == nil {
		in.mu.Unlock()
		return nil
	}
	f, fired := in.fault, in.fired
	in.fault = nil
	in.mu.Unlock()
	err := f()
	close(fired)
	return err
}

// runJoiner joins dana's workspace as sam (with faults from in) and runs
// sam's client until the test ends.
func runJoiner(t *testing.T, r *faultRelay, dana *Engine, in *injector) *Engine {
	t.Helper()
	ctx := testCtx(t)
	link, err := dana.CreateInvite(ctx, nil, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	opts := r.options(t, "sam", 71)
	opts.Crash = in.crash
	sam, err := Join(ctx, opts, link)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sam.Run(runCtx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
		sam.Close()
	})
	return sam
}

// waitRead waits until e holds a channel's first message: the channel is
// readable, not only listed.
func waitRead(t *testing.T, e *Engine, channel, text string) {
	t.Helper()
	ctx := testCtx(t)
	for i := 0; i < 1200; i++ {
		ms, err := e.Messages(ctx, channel, 0)
		if err == nil && len(ms) > 0 && ms[0].Text == text {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("#%s: its first message %q never became readable (last: %+v, %v; status %+v)", channel, text, ms, err, e.Status().Pending)
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("#%s: its first message %q never became readable; status %+v", channel, text, e.Status().Pending)
}

// faultWorkspace starts a fault relay, Dana's workspace on it and Sam as a
// running joiner who has read #general's first message.
func faultWorkspace(t *testing.T, seed byte) (r *faultRelay, dana, sam *Engine, in *injector) {
	t.Helper()
	r = startFaultRelay(t)
	ctx := testCtx(t)
	dana, err := CreateWorkspace(ctx, r.options(t, "dana", seed), "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dana.Close() })
	in = &injector{}
	sam = runJoiner(t, r, dana, in)
	if _, err := dana.Send(ctx, "general", "welcome"); err != nil {
		t.Fatal(err)
	}
	waitRead(t, sam, "general", "welcome")
	return r, dana, sam, in
}

// A running member's join loop ends with every entitled channel readable
// whatever transient failure it meets at each of its steps: groups/no_bundle,
// a dropped connection, a relay restart (issue 17 item 1).
func TestJoinLoopHealsFromFaultsAtEachStep(t *testing.T) {
	t.Parallel()
	r, dana, sam, in := faultWorkspace(t, 70)
	ctx := testCtx(t)
	faults := []struct {
		name string
		do   func() error
	}{
		{"no_bundle", func() error {
			return errors.New("groups/no_bundle: injected: the channel has no standing group info yet")
		}},
		{"dropped", func() error { r.drop(); return nil }},
		{"restart", r.restart},
	}
	steps := []string{JoinStepRoot, JoinStepBundles, JoinStepCommit, JoinStepHistory}
	n := 0
	for _, f := range faults {
		for _, step := range steps {
			n++
			name := fmt.Sprintf("c%d-%s-%s", n, f.name, strings.TrimPrefix(step, "selfjoin/"))
			fired := in.arm(step, f.do)
			if err := createRetrying(ctx, dana, name); err != nil {
				t.Fatalf("%s: create: %v", name, err)
			}
			if _, err := sendRetrying(ctx, dana, name, "first in "+name); err != nil {
				t.Fatalf("%s: send: %v", name, err)
			}
			waitRead(t, sam, name, "first in "+name)
			select {
			case <-fired:
			default:
				t.Fatalf("%s: the fault was never injected", name)
			}
		}
	}
	// Every entitled group, #activity included, ends joined.
	for i := 0; ; i++ {
		st := sam.Status()
		if st.Joined == st.Groups && len(st.Pending) == 0 {
			break
		}
		if i == 600 {
			t.Fatalf("sam joined %d of %d groups, pending %v", st.Joined, st.Groups, st.Pending)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// createRetrying creates a channel once the creator's own connection is
// back: the fault injected at a joiner's step (a dropped connection, a relay
// restart) can cut the creator's connection too, before or after the relay
// recorded the channel. A retry of the same creation returns that channel
// (TestCreateChannelRetriedAfterALostAnswer).
func createRetrying(ctx context.Context, e *Engine, name string) error {
	var err error
	for i := 0; i < 100; i++ {
		if _, err = e.CreateChannel(ctx, name, roster.AdmissionParent); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
	return err
}

// sendRetrying sends once the sender's own connection is back (a relay
// restart drops the creator's connection too).
func sendRetrying(ctx context.Context, e *Engine, channel, text string) (Message, error) {
	var err error
	for i := 0; i < 100; i++ {
		var m Message
		if m, err = e.Send(ctx, channel, text); err == nil {
			return m, nil
		}
		select {
		case <-ctx.Done():
			return Message{}, err
		case <-time.After(50 * time.Millisecond):
		}
	}
	return Message{}, err
}

// A channel recorded in the roster before its standing GroupInfo exists
// (the order CreateChannel used to have) leaves a running joiner with
// groups/no_bundle and nothing else happening: no roster change, no
// reconnect. The join loop's retry alone must make it readable.
func TestJoinLoopRetriesNoBundle(t *testing.T) {
	t.Parallel()
	_, dana, sam, in := faultWorkspace(t, 72)
	ctx := testCtx(t)
	// Sam reads the bundles of the new channel and finds none.
	reached := in.arm(JoinStepBundles, func() error { return nil })
	dana.mu.Lock()
	var cg *roster.CreateGroup
	err := dana.appendRoster(ctx, func() (roster.Body, error) {
		var err error
		cg, err = roster.NewChannel(dana.rand, dana.roster, "late", roster.AdmissionParent)
		return cg, err
	})
	dana.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-reached:
	case <-ctx.Done():
		t.Fatal("sam never tried to join the recorded channel")
	}
	dana.mu.Lock()
	err = dana.ensureOwnGroup(ctx, roster.GroupInfo{Policy: cg.Policy, Name: cg.Name})
	dana.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Send(ctx, "late", "first in late"); err != nil {
		t.Fatal(err)
	}
	waitRead(t, sam, "late", "first in late")
}

// A channel is in the roster only once its standing bundles are published:
// a member who syncs at any moment of the creation either does not see the
// channel or can join it.
func TestCreateChannelPublishesBeforeRecording(t *testing.T) {
	t.Parallel()
	r := startFaultRelay(t)
	ctx := testCtx(t)
	opts := r.options(t, "dana", 73)
	var published atomic.Bool
	var dana *Engine
	opts.Crash = func(step string) error {
		if step != "channel_published" {
			return nil
		}
		published.Store(true)
		for _, c := range dana.roster.Groups() {
			if c.Name == "design" {
				return errors.New("the channel was recorded before its bundles were published")
			}
		}
		return nil
	}
	var err error
	dana, err = CreateWorkspace(ctx, opts, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer dana.Close()
	if _, err := dana.CreateChannel(ctx, "design", roster.AdmissionParent); err != nil {
		t.Fatal(err)
	}
	if !published.Load() {
		t.Fatal("the creation never reached its published step")
	}
}

// stop takes the relay down (connections refused) until start.
func (r *faultRelay) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopLocked()
}

func (r *faultRelay) start() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := 0; ; i++ {
		ln, err := net.Listen("tcp", r.addr)
		if err == nil {
			return r.serve(ln)
		}
		if i == 100 {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}
