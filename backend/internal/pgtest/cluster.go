// Package pgtest starts a throwaway PostgreSQL cluster on 127.0.0.1 for tests.
//
// The relay's protocol suite runs against SQLite and against a real PostgreSQL
// (issue 4, "Proof"); this package provides the PostgreSQL half: it drives
// Debian's server binaries (initdb, postgres) and hands out postgres:// URLs.
// Databases are created and dropped over one client connection the cluster
// keeps open (pgx), not by a createdb or dropdb process each time: on a
// loaded machine those processes and their connections were most of a
// PostgreSQL test's time.
//
// Typical use, one cluster per test binary and one fresh database per test:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		url := pgtest.NewDatabase(t) // postgres://postgres@127.0.0.1:PORT/t_...?sslmode=disable
//		...
//	}
//
// NewDatabaseFrom copies each test's database from a template that a setup
// function (a schema migration) builds once per test binary.
//
// The cluster is started lazily by the first NewDatabase call, so binaries
// whose tests never ask for PostgreSQL pay nothing. Missing binaries are a
// test failure with an installation hint, never a skip.
//
// When the test process runs as root (initdb refuses root), the cluster's
// processes run as the "postgres" system user, in a temporary directory owned
// by it. The postmaster is tied to the test process with a parent-death
// signal, so a test binary killed by its -timeout does not leave it running.
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Deadlines for each step; a busy 2-core machine can be slow, but nothing
// waits forever.
const (
	initdbTimeout = 90 * time.Second
	startTimeout  = 45 * time.Second
	clientTimeout = 20 * time.Second
	stopTimeout   = 15 * time.Second
)

// InstallHint is the sentence attached to every "binaries not found" error.
const InstallHint = "install Debian's PostgreSQL server with `apt-get install -y postgresql` " +
	"(or point WEALD_PG_BIN at a directory holding initdb and postgres)"

// ErrNoBinaries reports that no PostgreSQL server binaries were found.
var ErrNoBinaries = errors.New("pgtest: PostgreSQL server binaries not found")

// Cluster is one running throwaway PostgreSQL cluster.
type Cluster struct {
	// Port is the TCP port on 127.0.0.1.
	Port int
	// User is the superuser name (trust authentication on loopback).
	User string
	// Version is the major version directory the binaries came from ("15").
	Version string

	bin  string // directory with the binaries
	base string // temp directory: data/, socket, log
	cred *syscall.Credential

	// admin is the one connection (to database postgres) that creates and
	// drops databases; adminMu serializes its use.
	adminMu sync.Mutex
	admin   *pgx.Conn

	mu      sync.Mutex
	done    chan struct{} // closed when the postmaster exited
	waitErr error
	proc    *os.Process
	stopped bool
	counter int
}

// FindBinaries returns the directory holding initdb and postgres, and the
// major version. WEALD_PG_BIN overrides the search; otherwise the highest
// version under /usr/lib/postgresql/*/bin is used, then `pg_config --bindir`.
func FindBinaries() (dir, version string, err error) {
	ok := func(d string) bool {
		for _, b := range []string{"initdb", "postgres"} {
			if st, err := os.Stat(filepath.Join(d, b)); err != nil || st.IsDir() {
				return false
			}
		}
		return true
	}
	if d := os.Getenv("WEALD_PG_BIN"); d != "" {
		if !ok(d) {
			return "", "", fmt.Errorf("%w in WEALD_PG_BIN=%s; %s", ErrNoBinaries, d, InstallHint)
		}
		return d, filepath.Base(filepath.Dir(d)), nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	type cand struct {
		dir string
		v   float64
		s   string
	}
	var cs []cand
	for _, m := range matches {
		s := filepath.Base(filepath.Dir(m))
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !ok(m) {
			continue
		}
		cs = append(cs, cand{m, v, s})
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].v > cs[j].v })
	if len(cs) > 0 {
		return cs[0].dir, cs[0].s, nil
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		d := strings.TrimSpace(string(out))
		if ok(d) {
			return d, "", nil
		}
	}
	return "", "", fmt.Errorf("%w (looked in /usr/lib/postgresql/*/bin and pg_config); %s", ErrNoBinaries, InstallHint)
}

// Start initializes and starts a new cluster on a free loopback port. The
// caller must call Stop.
func Start(ctx context.Context) (*Cluster, error) {
	bin, version, err := FindBinaries()
	if err != nil {
		return nil, err
	}
	c := &Cluster{User: "postgres", Version: version, bin: bin}
	if os.Geteuid() == 0 {
		cred, err := postgresCredential()
		if err != nil {
			return nil, err
		}
		c.cred = cred
	}
	root := tempRoot(c.cred != nil)
	removeStale(root, time.Now())
	c.base, err = os.MkdirTemp(root, "weald-pgtest-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: temp dir: %w", err)
	}
	if c.cred != nil {
		if err := os.Chown(c.base, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			os.RemoveAll(c.base)
			return nil, fmt.Errorf("pgtest: chown temp dir to postgres: %w", err)
		}
	}
	if err := c.initdb(ctx); err != nil {
		os.RemoveAll(c.base)
		return nil, err
	}
	// A port chosen by binding :0 can be taken by someone else before the
	// postmaster binds it; retry a few times.
	var lastErr error
	for attempt := 0; attempt < 4; attempt++ {
		port, err := freePort()
		if err != nil {
			lastErr = err
			continue
		}
		if lastErr = c.start(ctx, port); lastErr == nil {
			return c, nil
		}
		if ctx.Err() != nil {
			break
		}
	}
	os.RemoveAll(c.base)
	return nil, lastErr
}

// removeStale deletes cluster directories left by test binaries that died
// (their postmaster died with them): older than ten minutes, and whose
// postmaster.pid names no live process.
func removeStale(root string, now time.Time) {
	dirs, _ := filepath.Glob(filepath.Join(root, "weald-pgtest-*"))
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil || !st.IsDir() || now.Sub(st.ModTime()) < 10*time.Minute {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(d, "data", "postmaster.pid")); err == nil {
			line, _, _ := strings.Cut(string(b), "\n")
			if pid, err := strconv.Atoi(strings.TrimSpace(line)); err == nil && pid > 0 {
				if syscall.Kill(pid, 0) == nil {
					continue
				}
			}
		}
		os.RemoveAll(d)
	}
}

// tempRoot picks a parent directory the postgres user can traverse.
func tempRoot(asPostgres bool) string {
	d := os.TempDir()
	if !asPostgres {
		return d
	}
	for p := d; p != "/" && p != "."; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm()&0o001 == 0 {
			return "/tmp"
		}
	}
	return d
}

func postgresCredential() (*syscall.Credential, error) {
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root needs the `postgres` system user (initdb refuses root): %v; %s", err, InstallHint)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("pgtest: bad uid/gid for user postgres: %q/%q", u.Uid, u.Gid)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: pick a port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (c *Cluster) dataDir() string { return filepath.Join(c.base, "data") }
func (c *Cluster) logPath() string { return filepath.Join(c.base, "postgres.log") }

// serverCmd builds a command for a server binary, run as postgres when root.
func (c *Cluster) serverCmd(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, name), args...)
	cmd.Dir = c.base
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C", "HOME="+c.base, "PGTZ=UTC")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	return cmd
}

func (c *Cluster) initdb(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, initdbTimeout)
	defer cancel()
	cmd := c.serverCmd(ctx, "initdb", "-D", c.dataDir(), "-U", c.User, "--auth=trust",
		"--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pgtest: initdb failed (%v): %s", err, tail(out.String(), 1500))
	}
	return nil
}

func (c *Cluster) start(ctx context.Context, port int) error {
	logf, err := os.OpenFile(c.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("pgtest: open log: %w", err)
	}
	// The server outlives ctx: Stop ends it.
	cmd := c.serverCmd(context.Background(), "postgres", "-D", c.dataDir(),
		"-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories="+c.base,
		"-c", "fsync=off",
		"-c", "full_page_writes=off",
		"-c", "max_connections=200",
		"-c", "shared_buffers=32MB",
		"-c", "log_min_messages=warning",
	)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Tie the postmaster to this process: SIGQUIT is PostgreSQL's immediate
	// shutdown. Pdeathsig fires when the forking OS thread exits, so the
	// fork happens on a goroutine that holds its thread until the
	// postmaster is gone.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	// Its own process group, so that Kill reaches the backends too and can
	// wait until they are gone.
	cmd.SysProcAttr.Setpgid = true
	started := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			close(done)
			return
		}
		started <- nil
		err := cmd.Wait()
		c.mu.Lock()
		c.waitErr = err
		c.mu.Unlock()
		logf.Close()
		close(done)
	}()
	if err := <-started; err != nil {
		logf.Close()
		return fmt.Errorf("pgtest: start postgres: %w", err)
	}
	c.mu.Lock()
	c.proc, c.done, c.Port, c.stopped = cmd.Process, done, port, false
	c.mu.Unlock()

	deadline := time.Now().Add(startTimeout)
	for i := 0; ; i++ {
		select {
		case <-done:
			return fmt.Errorf("pgtest: postgres exited during start on port %d: %s", port, c.LogTail())
		default:
		}
		if c.ready(ctx) {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			c.Stop()
			return fmt.Errorf("pgtest: postgres not ready within %s on port %d: %s", startTimeout, port, c.LogTail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ready reports whether the server accepts a connection.
func (c *Cluster) ready(ctx context.Context) bool {
	conn, err := c.connect(ctx, "postgres", 2*time.Second)
	if err != nil {
		return false
	}
	conn.Close(ctx)
	return true
}

// connect opens a client connection to database db within timeout.
func (c *Cluster) connect(ctx context.Context, db string, timeout time.Duration) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return pgx.Connect(ctx, c.URL(db))
}

// LogTail returns the end of the server log, for error messages.
func (c *Cluster) LogTail() string {
	b, _ := os.ReadFile(c.logPath())
	return tail(string(b), 2000)
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}

// URL returns the connection URL of database db.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", c.User, c.Port, db)
}

// Query runs SQL (one or more statements) in database db and returns the
// last statement's rows as text, one row a line, columns separated by '|'
// (NULL as the empty string).
func (c *Cluster) Query(ctx context.Context, db, sql string) (string, error) {
	conn, err := c.connect(ctx, db, clientTimeout)
	if err != nil {
		return "", fmt.Errorf("pgtest: connect to %s: %w", db, err)
	}
	defer conn.Close(context.Background())
	ctx, cancel := context.WithTimeout(ctx, clientTimeout)
	defer cancel()
	results, err := conn.PgConn().Exec(ctx, sql).ReadAll()
	if err != nil {
		return "", fmt.Errorf("pgtest: query: %w", err)
	}
	var lines []string
	if len(results) > 0 {
		for _, row := range results[len(results)-1].Rows {
			cols := make([]string, len(row))
			for i, v := range row {
				cols[i] = string(v)
			}
			lines = append(lines, strings.Join(cols, "|"))
		}
	}
	return strings.Join(lines, "\n"), nil
}

// adminExec runs one statement on the cluster's admin connection, opening
// it first when there is none (or the server was restarted under it).
func (c *Cluster) adminExec(ctx context.Context, sql string) error {
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	if c.admin == nil || c.admin.IsClosed() {
		conn, err := c.connect(ctx, "postgres", clientTimeout)
		if err != nil {
			return fmt.Errorf("pgtest: connect: %w", err)
		}
		c.admin = conn
	}
	ctx, cancel := context.WithTimeout(ctx, clientTimeout)
	defer cancel()
	if _, err := c.admin.Exec(ctx, sql); err != nil {
		return fmt.Errorf("pgtest: %s: %w", sql, err)
	}
	return nil
}

// closeAdmin closes the admin connection, if open.
func (c *Cluster) closeAdmin() {
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	if c.admin != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c.admin.Close(ctx)
		cancel()
		c.admin = nil
	}
}

// CreateDatabase creates a new empty database and returns its URL.
func (c *Cluster) CreateDatabase(ctx context.Context, name string) (string, error) {
	return c.CreateDatabaseFrom(ctx, name, "template0")
}

// CreateDatabaseFrom creates database name as a copy of database template
// (which nobody may be connected to) and returns its URL.
func (c *Cluster) CreateDatabaseFrom(ctx context.Context, name, template string) (string, error) {
	q := fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s ENCODING 'UTF8'", pgx.Identifier{name}.Sanitize(), pgx.Identifier{template}.Sanitize())
	if err := c.adminExec(ctx, q); err != nil {
		return "", err
	}
	return c.URL(name), nil
}

// DropDatabase drops a database, disconnecting its sessions.
func (c *Cluster) DropDatabase(ctx context.Context, name string) error {
	return c.adminExec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", pgx.Identifier{name}.Sanitize()))
}

// NextName returns a unique database name derived from hint.
func (c *Cluster) NextName(hint string) string {
	c.mu.Lock()
	c.counter++
	n := c.counter
	c.mu.Unlock()
	var b strings.Builder
	b.WriteString("t")
	for _, r := range strings.ToLower(hint) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else if !strings.HasSuffix(b.String(), "_") {
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	return fmt.Sprintf("%s_%d_%d", b.String(), os.Getpid(), n)
}

// Kill stops the postmaster immediately (SIGKILL), leaving the data
// directory; Restart brings it back on the same port. Crash tests use these.
func (c *Cluster) Kill() error {
	c.mu.Lock()
	p, done := c.proc, c.done
	c.mu.Unlock()
	if p == nil {
		return errors.New("pgtest: not running")
	}
	c.closeAdmin()
	// PostgreSQL's children call setsid(): each leads its own process
	// group, so killing the postmaster's group leaves them running, holding
	// the shared memory block, and Restart then fails with "pre-existing
	// shared memory block is still in use" (seen under load). Stop the
	// postmaster so that it forks no more, kill every child it has, then
	// it, and wait until none of them runs.
	_ = syscall.Kill(p.Pid, syscall.SIGSTOP)
	kids := childrenOf(p.Pid)
	for _, k := range kids {
		_ = syscall.Kill(k, syscall.SIGKILL)
	}
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	deadline := time.After(stopTimeout)
	select {
	case <-done:
	case <-deadline:
		return errors.New("pgtest: postgres did not die after SIGKILL")
	}
	for i := 0; anyAlive(kids) || groupAlive(p.Pid); i++ {
		select {
		case <-deadline:
			return errors.New("pgtest: postgres backends outlived SIGKILL")
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

// procStat reads the fields of /proc/PID/stat after the command name:
// state, ppid, pgrp, … (comm may hold spaces, so read after the last ')').
func procStat(f string) []string {
	b, err := os.ReadFile(f)
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// childrenOf lists the running processes whose parent is pid.
func childrenOf(pid int) []int {
	var out []int
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range procs {
		if fields := procStat(f); len(fields) >= 2 && fields[1] == strconv.Itoa(pid) {
			if k, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil {
				out = append(out, k)
			}
		}
	}
	return out
}

// anyAlive reports whether one of pids still runs (a zombie has let go of
// its memory and does not count).
func anyAlive(pids []int) bool {
	for _, k := range pids {
		if fields := procStat(fmt.Sprintf("/proc/%d/stat", k)); len(fields) >= 1 && fields[0] != "Z" {
			return true
		}
	}
	return false
}

// groupAlive reports whether a process of group pgid is still running (a
// zombie, awaiting its reaper, has let go of its memory and does not count).
func groupAlive(pgid int) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range procs {
		if fields := procStat(f); len(fields) >= 3 && fields[0] != "Z" && fields[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}

// Restart starts the postmaster again on the same port and data directory
// after Kill (PostgreSQL runs crash recovery).
func (c *Cluster) Restart(ctx context.Context) error {
	c.mu.Lock()
	done := c.done
	c.mu.Unlock()
	select {
	case <-done:
	default:
		return errors.New("pgtest: still running; Kill first")
	}
	return c.start(ctx, c.Port)
}

// Stop shuts the cluster down (fast shutdown, then immediate, then kill)
// and removes its directory. It is safe to call more than once.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return nil
	}
	c.stopped = true
	p, done := c.proc, c.done
	c.mu.Unlock()
	c.closeAdmin()
	var err error
	if p != nil {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGKILL} {
			_ = p.Signal(sig)
			select {
			case <-done:
				err = nil
			case <-time.After(stopTimeout / 3):
				err = fmt.Errorf("pgtest: postgres ignored %v", sig)
				continue
			}
			break
		}
	}
	if rmErr := os.RemoveAll(c.base); rmErr != nil && err == nil {
		err = rmErr
	}
	return err
}
