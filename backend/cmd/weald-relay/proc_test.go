package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"weald/backend/internal/pgtest"
	"weald/backend/relayclient"
	"weald/backend/wire"
)

// The system tests run the real weald-relay binary, built once per test
// binary with `go build`, as a child process listening on 127.0.0.1.

var build struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := pgtest.Main(m)
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	os.Exit(code)
}

func relayBinary(t *testing.T) string {
	t.Helper()
	build.once.Do(func() {
		build.dir, build.err = os.MkdirTemp("", "weald-relay-bin-")
		if build.err != nil {
			return
		}
		build.path = filepath.Join(build.dir, "weald-relay")
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", build.path, ".")
		out, err := cmd.CombinedOutput()
		if err != nil {
			build.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.path
}

// proc is one running relay process.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	addr   string
	url    string
	db     string
	done   chan struct{}
	stderr *syncBuffer
	stdout *syncBuffer
	err    error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startProc starts weald-relay on db, listening on listen (127.0.0.1:0 for
// a free port), and waits until it prints where it listens.
func startProc(t *testing.T, db, listen string, extra ...string) *proc {
	t.Helper()
	args := append([]string{"-listen", listen, "-db", db, "-shutdown-grace", "2s"}, extra...)
	cmd := exec.Command(relayBinary(t), args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_DATA_HOME=")
	p := &proc{t: t, cmd: cmd, db: db, done: make(chan struct{}), stderr: &syncBuffer{}, stdout: &syncBuffer{}}
	cmd.Stderr = p.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			p.stdout.Write([]byte(line + "\n"))
			if rest, ok := strings.CutPrefix(line, "weald-relay: listening on "); ok {
				addr, _, _ := strings.Cut(rest, " ")
				select {
				case addrc <- addr:
				default:
				}
			}
		}
	}()
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() { p.kill() })
	select {
	case p.addr = <-addrc:
	case <-p.done:
		t.Fatalf("relay exited before listening: %v\nstderr:\n%s", p.err, p.stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("relay did not print its address within 30 s\nstderr:\n%s", p.stderr.String())
	}
	p.url = "ws://" + p.addr + "/v1/ws"
	return p
}

// kill SIGKILLs the process and waits for it.
func (p *proc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.t.Errorf("relay pid %d survived SIGKILL for 10 s", p.cmd.Process.Pid)
	}
}

// term sends SIGTERM and returns the exit error (nil for status 0).
func (p *proc) term() error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return p.err
	case <-time.After(10 * time.Second):
		p.kill()
		return fmt.Errorf("relay did not stop within 10 s of SIGTERM")
	}
}

type keyPair struct {
	pub  ed25519.PublicKey
	priv ed25519.PrivateKey
}

func seededKey(name string) keyPair {
	seed := sha256.Sum256([]byte("system test key " + name))
	priv := ed25519.NewKeyFromSeed(seed[:])
	return keyPair{pub: priv.Public().(ed25519.PublicKey), priv: priv}
}

type workspace struct {
	id      wire.ID
	genesis keyPair
	members []keyPair
	set     wire.AccessSet
}

// provisionWorkspace runs `weald-relay provision` against the database and
// publishes the first access set over the wire (members[0] is the admin).
func provisionWorkspace(t *testing.T, db string, url string, members ...keyPair) *workspace {
	t.Helper()
	w := &workspace{id: sha256.Sum256([]byte("system ws " + t.Name())), genesis: seededKey("genesis " + t.Name()), members: members}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, relayBinary(t), "provision", "-db", db,
		"-workspace", hex.EncodeToString(w.id[:]), "-genesis", hex.EncodeToString(w.genesis.pub))
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "provisioned workspace") {
		t.Fatalf("provision: %v\n%s", err, out)
	}
	w.set = wire.AccessSet{Workspace: w.id, Version: 1}
	for i, m := range members {
		w.set.Devices = append(w.set.Devices, wire.DeviceKey{Pub: m.pub, User: wire.KeyID(m.pub), Admin: i == 0})
	}
	wire.SignAccessSet(&w.set, w.genesis.priv)
	if err := relayclient.PublishGenesis(ctx, url, w.set); err != nil {
		t.Fatalf("genesis access set: %v", err)
	}
	return w
}

func dial(t *testing.T, url string, ws wire.ID, cred relayclient.Credential) (*relayclient.Client, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := relayclient.Dial(ctx, relayclient.Config{URL: url, Workspace: ws, Credential: cred,
		Backoff: relayclient.Backoff{Min: 20 * time.Millisecond, Max: 250 * time.Millisecond}})
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

func mustDial(t *testing.T, url string, ws wire.ID, k keyPair) *relayclient.Client {
	t.Helper()
	c, err := dial(t, url, ws, relayclient.KeyCredential(k.priv, wire.PrincipalDevice))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sqliteDB returns a fresh SQLite path; postgresDB a fresh database URL.
func sqliteDB(t *testing.T) string   { return filepath.Join(t.TempDir(), "relay.db") }
func postgresDB(t *testing.T) string { return pgtest.NewDatabase(t) }

func execCommand(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+os.TempDir())
	return cmd
}

// scrape reads one series from the process's /metrics.
func scrape(t *testing.T, addr, series string) float64 {
	t.Helper()
	res, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			var v float64
			if _, err := fmt.Sscan(rest, &v); err == nil {
				return v
			}
		}
	}
	t.Fatalf("series %s not in /metrics", series)
	return 0
}
