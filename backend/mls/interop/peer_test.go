package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// impl is one MLS implementation that speaks the mlspeer command line.
type impl struct {
	name string
	argv []string // program and leading arguments
	// srv, when set, runs the invocations instead of a process each.
	srv *server
}

// server is one `serve` process of an implementation: it runs invocations
// sent as lines on its stdin, each loading and saving its state directory
// as a process of its own would, and answers each with one line (what that
// process would have exited with and printed). A Node process costs about
// half a CPU-second to start; one per test instead of one per invocation.
type server struct {
	name    string
	cmd     *exec.Cmd
	in      io.WriteCloser
	answers chan served // closed when stdout ends
	errFile string      // its stderr
}

// served is one answer of a server.
type served struct {
	Exit   int    `json:"exit"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

// stderr returns what the server wrote to stderr so far.
func (s *server) stderr() string {
	b, _ := os.ReadFile(s.errFile)
	return string(b)
}

// served returns im driven through one serve process, stopped when the test ends.
func (im impl) served(t *testing.T) impl {
	t.Helper()
	cmd := exec.Command(im.argv[0], append(append([]string{}, im.argv[1:]...), "serve")...)
	srv := &server{name: im.name, cmd: cmd, answers: make(chan served), errFile: filepath.Join(t.TempDir(), "stderr")}
	errf, err := os.Create(srv.errFile)
	if err != nil {
		t.Fatal(err)
	}
	defer errf.Close() // the child has its own copy
	cmd.Stderr = errf
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: cannot start %v serve: %v", im.name, im.argv, err)
	}
	srv.in = in
	go func() {
		defer close(srv.answers)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			var a served
			if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
				a = served{Exit: -1, Stderr: fmt.Sprintf("answer %q is not one JSON object: %v", sc.Text(), err)}
			}
			srv.answers <- a
		}
	}()
	t.Cleanup(func() {
		in.Close() // serve ends at the end of its input
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s serve: %v: %s", im.name, err, srv.stderr())
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("%s serve did not end with its input", im.name)
		}
	})
	im.srv = srv
	return im
}

// do runs one invocation on the server, by the deadline.
func (s *server) do(t *testing.T, argv []string, deadline time.Time) served {
	t.Helper()
	line, err := json.Marshal(argv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.in.Write(append(line, '\n')); err != nil {
		t.Fatalf("%s serve: writing a request: %v: %s", s.name, err, s.stderr())
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case a, ok := <-s.answers:
		if !ok {
			t.Fatalf("%s serve ended before answering %v: %s", s.name, argv, s.stderr())
		}
		if a.Exit < 0 {
			t.Fatalf("%s serve: %s", s.name, a.Stderr)
		}
		return a
	case <-timer.C:
		s.cmd.Process.Kill()
		t.Fatalf("%s serve: %v: test deadline passed", s.name, argv)
	}
	panic("unreachable")
}

// peer is one party: an implementation plus its own state directory.
type peer struct {
	t        *testing.T
	impl     impl
	identity string
	dir      string
	hex      bool
	private  bool
	deadline time.Time
}

type member struct {
	Index    int    `json:"index"`
	Identity string `json:"identity"`
}

type groupInfo struct {
	Epoch   uint64   `json:"epoch"`
	GroupID string   `json:"group_id"`
	OwnLeaf int      `json:"own_leaf"`
	Members []member `json:"members"`
}

type processed struct {
	File    string   `json:"file"`
	Type    string   `json:"type"`
	Epoch   uint64   `json:"epoch"`
	Text    *string  `json:"text"`
	Active  *bool    `json:"active"`
	Members []member `json:"members"`
}

func newPeer(t *testing.T, im impl, identity string, deadline time.Time) *peer {
	t.Helper()
	return &peer{t: t, impl: im, identity: identity, dir: filepath.Join(t.TempDir(), "state"), deadline: deadline}
}

func (p *peer) String() string { return p.identity + "@" + p.impl.name }

// run executes one command and returns stdout; any non-zero exit fails the test.
func (p *peer) run(args ...string) string {
	p.t.Helper()
	out, code, stderr := p.try(args...)
	if code != 0 {
		p.t.Fatalf("%s: %s exited %d: %s", p, strings.Join(args, " "), code, stderr)
	}
	return out
}

// try executes one command and returns stdout, the exit code and stderr.
func (p *peer) try(args ...string) (string, int, string) {
	p.t.Helper()
	argv := []string{"--state", p.dir, "--identity", p.identity}
	if p.hex {
		argv = append(argv, "--hex")
	}
	if p.private {
		argv = append(argv, "--private-handshake")
	}
	argv = append(argv, args...)
	if p.impl.srv != nil {
		a := p.impl.srv.do(p.t, argv, p.deadline)
		return a.Stdout, a.Exit, a.Stderr
	}
	ctx, cancel := context.WithDeadline(context.Background(), p.deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.impl.argv[0], append(append([]string{}, p.impl.argv[1:]...), argv...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		p.t.Fatalf("%s: %s: test deadline passed", p, strings.Join(args, " "))
	}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			p.t.Fatalf("%s: cannot run %v: %v", p, p.impl.argv, err)
		}
		return stdout.String(), ee.ExitCode(), stderr.String()
	}
	return stdout.String(), 0, stderr.String()
}

func (p *peer) runJSON(v any, args ...string) {
	p.t.Helper()
	out := p.run(args...)
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), v); err != nil {
		p.t.Fatalf("%s: %s: output %q is not one JSON object: %v", p, strings.Join(args, " "), out, err)
	}
}

func (p *peer) info() groupInfo {
	p.t.Helper()
	var gi groupInfo
	p.runJSON(&gi, "info")
	return gi
}

// process hands the peer message files and returns one result per file.
func (p *peer) process(files ...string) []processed {
	p.t.Helper()
	out := p.run(append([]string{"process"}, files...)...)
	var res []processed
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var pr processed
		if err := json.Unmarshal([]byte(line), &pr); err != nil {
			p.t.Fatalf("%s: process output line %q: %v", p, line, err)
		}
		res = append(res, pr)
	}
	if len(res) != len(files) {
		p.t.Fatalf("%s: process printed %d lines for %d files", p, len(res), len(files))
	}
	return res
}

// file names a fresh path in the shared exchange directory.
type exchange struct {
	dir string
	n   int
}

func (x *exchange) file(name string) string {
	x.n++
	return filepath.Join(x.dir, fmt.Sprintf("%03d-%s", x.n, name))
}

// agree checks that every peer is at the same epoch with the same members, epoch authenticator and exporter output.
func agree(t *testing.T, peers ...*peer) uint64 {
	t.Helper()
	var first groupInfo
	var auth, exp string
	for i, p := range peers {
		gi := p.info()
		a := strings.TrimSpace(p.run("epoch-authenticator"))
		ctxHex := fmt.Sprintf("%016x", gi.Epoch)
		e := strings.TrimSpace(p.run("export", "weald interop", ctxHex, "32"))
		// The empty context once per group (it costs a process per peer).
		e0 := "00000000000000"
		if gi.Epoch == 1 {
			e0 = strings.TrimSpace(p.run("export", "weald interop", "", "7"))
		}
		if len(a) == 0 || len(e) != 64 || len(e0) != 14 {
			t.Fatalf("%s: bad lengths: authenticator %q export %q export-empty %q", p, a, e, e0)
		}
		if i == 0 {
			first, auth, exp = gi, a, e+e0
			continue
		}
		if gi.Epoch != first.Epoch || gi.GroupID != first.GroupID || !reflect.DeepEqual(gi.Members, first.Members) {
			t.Fatalf("%s disagrees with %s on the group: %+v vs %+v", p, peers[0], gi, first)
		}
		if a != auth {
			t.Fatalf("epoch %d: %s epoch authenticator %s, %s has %s", gi.Epoch, p, a, peers[0], auth)
		}
		if e+e0 != exp {
			t.Fatalf("epoch %d: %s exporter %s, %s has %s", gi.Epoch, p, e+e0, peers[0], exp)
		}
	}
	t.Logf("epoch %d: %d peers agree (authenticator %s…)", first.Epoch, len(peers), auth[:16])
	return first.Epoch
}

func expectText(t *testing.T, p *peer, res []processed, want string) {
	t.Helper()
	if len(res) != 1 || res[0].Type != "application" || res[0].Text == nil || *res[0].Text != want {
		t.Fatalf("%s: got %+v, want application %q", p, res, want)
	}
}

func expectCommit(t *testing.T, p *peer, res []processed, active bool) {
	t.Helper()
	for _, r := range res {
		if r.Type != "commit" || r.Active == nil || *r.Active != active {
			t.Fatalf("%s: got %+v, want commit with active=%v", p, r, active)
		}
	}
}

// scenario runs the interop story with implementation a as the creator of the
// first group and b as everyone else's implementation; the second group is
// created by b and joined by a through a Welcome with an out-of-band tree.
func scenario(t *testing.T, a, b impl) {
	deadline := time.Now().Add(6 * time.Minute)
	x := &exchange{dir: t.TempDir()}

	alice := newPeer(t, a, "uuid:1@example.test", deadline)
	bob := newPeer(t, b, "bob", deadline)
	carol := newPeer(t, b, "carol", deadline)

	// Group 1: a creates, b joins by Welcome (ratchet_tree extension).
	var gi groupInfo
	alice.runJSON(&gi, "create", "weald interop group")
	if gi.Epoch != 0 || gi.OwnLeaf != 0 || len(gi.Members) != 1 {
		t.Fatalf("create: %+v", gi)
	}
	kp := x.file("bob.kp")
	bob.run("keypackage", kp)
	welcome, commit := x.file("welcome"), x.file("add-bob.commit")
	alice.run("add", kp, "--welcome", welcome, "--commit", commit)
	bob.runJSON(&gi, "join-welcome", welcome)
	if gi.OwnLeaf != 1 {
		t.Fatalf("bob joined at leaf %d", gi.OwnLeaf)
	}
	agree(t, alice, bob)

	// Application messages both ways.
	m := x.file("a2b.msg")
	alice.run("send", "hello from "+a.name, m)
	expectText(t, bob, bob.process(m), "hello from "+a.name)
	m = x.file("b2a.msg")
	bob.run("send", "hello from "+b.name, m)
	expectText(t, alice, alice.process(m), "hello from "+b.name)

	// b external-joins a's group from its GroupInfo.
	ginfo := x.file("groupinfo")
	alice.run("groupinfo", ginfo)
	ext := x.file("carol-external.commit")
	carol.run("external-join", ginfo, "--commit", ext)
	expectCommit(t, alice, alice.process(ext), true)
	expectCommit(t, bob, bob.process(ext), true)
	agree(t, alice, bob, carol)

	// carol resyncs: a new external commit that removes her old leaf.
	ginfo = x.file("groupinfo-resync")
	bob.run("groupinfo", ginfo)
	ext = x.file("carol-resync.commit")
	carol.runJSON(&gi, "external-join", ginfo, "--commit", ext, "--resync")
	if len(gi.Members) != 3 {
		t.Fatalf("after resync carol sees %+v", gi.Members)
	}
	expectCommit(t, alice, alice.process(ext), true)
	expectCommit(t, bob, bob.process(ext), true)
	agree(t, alice, bob, carol)

	// An Update (a commit with a fresh path) from the b side, then from a.
	up := x.file("bob-update.commit")
	bob.run("update", "--commit", up)
	expectCommit(t, alice, alice.process(up), true)
	expectCommit(t, carol, carol.process(up), true)
	agree(t, alice, bob, carol)
	up = x.file("alice-update.commit")
	alice.run("update", "--commit", up)
	expectCommit(t, bob, bob.process(up), true)
	expectCommit(t, carol, carol.process(up), true)
	agree(t, alice, bob, carol)

	m = x.file("c2all.msg")
	carol.run("send", "carol here", m)
	expectText(t, alice, alice.process(m), "carol here")
	expectText(t, bob, bob.process(m), "carol here")

	// a removes bob by identity; bob learns he is out.
	rm := x.file("remove-bob.commit")
	alice.run("remove", "id:bob", "--commit", rm)
	expectCommit(t, carol, carol.process(rm), true)
	expectCommit(t, bob, bob.process(rm), false)
	epoch := agree(t, alice, carol)
	if epoch != 6 {
		t.Fatalf("group 1 ended at epoch %d, want 6", epoch)
	}
	m = x.file("a2c.msg")
	alice.run("send", "after the remove", m)
	expectText(t, carol, carol.process(m), "after the remove")

	// Group 2: b creates, a joins by Welcome with an out-of-band tree. Files
	// are hex and handshake messages are PrivateMessages this time.
	dave := newPeer(t, b, "dave", deadline)
	erin := newPeer(t, a, "erin", deadline)
	for _, p := range []*peer{dave, erin} {
		p.hex, p.private = true, true
	}
	dave.runJSON(&gi, "create", "second group")
	kp = x.file("erin.kp")
	erin.run("keypackage", kp)
	welcome, commit, tree := x.file("welcome2"), x.file("add-erin.commit"), x.file("tree2")
	dave.run("add", kp, "--welcome", welcome, "--commit", commit, "--ratchet-tree", tree)
	erin.run("join-welcome", welcome, "--ratchet-tree", tree)
	agree(t, dave, erin)
	m = x.file("e2d.msg")
	erin.run("send", "erin joined", m)
	expectText(t, dave, dave.process(m), "erin joined")
	up = x.file("erin-update.commit")
	erin.run("update", "--commit", up)
	expectCommit(t, dave, dave.process(up), true)
	agree(t, dave, erin)
	rm = x.file("remove-leaf1.commit")
	dave.run("remove", "1", "--commit", rm)
	expectCommit(t, erin, erin.process(rm), false)
	if gi := dave.info(); gi.Epoch != 3 || len(gi.Members) != 1 {
		t.Fatalf("dave after the remove: %+v", gi)
	}
}

// errors checks the exit codes of the command line contract, of a process
// per invocation and of serve.
func errorCodes(t *testing.T, im impl) {
	errorCodesOf(t, im)
	errorCodesOf(t, im.served(t))
}

func errorCodesOf(t *testing.T, im impl) {
	deadline := time.Now().Add(time.Minute)
	p := newPeer(t, im, "zed", deadline)
	if _, code, _ := p.try("no-such-command"); code != 2 {
		t.Fatalf("%s: unknown command exited %d, want 2", im.name, code)
	}
	if _, code, _ := p.try("info"); code != 2 {
		t.Fatalf("%s: info without a group exited %d, want 2", im.name, code)
	}
	p.run("create", "g")
	junk := filepath.Join(t.TempDir(), "junk")
	if err := os.WriteFile(junk, []byte{0, 1, 0, 1, 0xff, 0xff, 0xff}, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, code, _ := p.try("process", junk); code != 1 {
		t.Fatalf("%s: processing junk exited %d, want 1", im.name, code)
	}
	if gi := p.info(); gi.Epoch != 0 {
		t.Fatalf("%s: junk changed the group: %+v", im.name, gi)
	}
}
