package pgtest

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestNewDatabaseIsFreshAndUsable(t *testing.T) {
	a := NewDatabase(t)
	b := NewDatabase(t)
	if a == b {
		t.Fatalf("two databases share a URL: %s", a)
	}
	if !strings.HasPrefix(a, "postgres://postgres@127.0.0.1:") || !strings.HasSuffix(a, "?sslmode=disable") {
		t.Fatalf("unexpected URL %q", a)
	}
	c := Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dbA := dbName(a)
	if _, err := c.Query(ctx, dbA, "CREATE TABLE x (v int); INSERT INTO x VALUES (7), (35)"); err != nil {
		t.Fatal(err)
	}
	got, err := c.Query(ctx, dbA, "SELECT sum(v) FROM x")
	if err != nil || got != "42" {
		t.Fatalf("sum = %q, %v; want 42", got, err)
	}
	// The other database does not see the table.
	if _, err := c.Query(ctx, dbName(b), "SELECT * FROM x"); err == nil {
		t.Fatal("table visible in a different fresh database")
	}
	v, err := c.Query(ctx, dbA, "SHOW server_version_num")
	if err != nil || len(v) < 5 {
		t.Fatalf("server_version_num = %q, %v", v, err)
	}
	if c.Version != "" && !strings.HasPrefix(v, c.Version) {
		t.Fatalf("server version %s does not match binaries directory %s", v, c.Version)
	}
}

func TestKillRestartKeepsCommittedData(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a PostgreSQL cluster of its own (make test runs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	url, err := c.CreateDatabase(ctx, "crash")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Query(ctx, dbName(url), "CREATE TABLE k (v int); INSERT INTO k VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	// The server's children (checkpointer, writers, backends) lead process
	// groups of their own; Kill must have ended them too, or the restart
	// finds the shared memory block still in use.
	kids := childrenOf(c.proc.Pid)
	if len(kids) == 0 {
		t.Fatal("the running server has no child processes to check")
	}
	if err := c.Kill(); err != nil {
		t.Fatal(err)
	}
	if anyAlive(kids) {
		t.Fatalf("server processes %v outlived Kill", kids)
	}
	if _, err := c.Query(ctx, "crash", "SELECT 1"); err == nil {
		t.Fatal("query succeeded against a killed cluster")
	}
	if err := c.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := c.Query(ctx, "crash", "SELECT count(*) FROM k")
	if err != nil || got != "1" {
		t.Fatalf("after restart count = %q, %v", got, err)
	}
	base := c.base
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(base); !os.IsNotExist(err) {
		t.Fatalf("cluster directory %s not removed: %v", base, err)
	}
	if err := c.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
}

func TestMissingBinariesIsAClearError(t *testing.T) {
	t.Setenv("WEALD_PG_BIN", t.TempDir())
	_, _, err := FindBinaries()
	if !errors.Is(err, ErrNoBinaries) {
		t.Fatalf("err = %v, want ErrNoBinaries", err)
	}
	if !strings.Contains(err.Error(), "apt-get install -y postgresql") {
		t.Fatalf("error lacks install hint: %v", err)
	}
	if _, err := Start(context.Background()); !errors.Is(err, ErrNoBinaries) {
		t.Fatalf("Start err = %v", err)
	}
}

func TestNextNameIsValidIdentifier(t *testing.T) {
	c := &Cluster{}
	n := c.NextName("TestSomething/With Sub-test: ünïcode " + strings.Repeat("x", 100))
	if len(n) > 63 {
		t.Fatalf("name too long: %d", len(n))
	}
	for _, r := range n {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9')) {
			t.Fatalf("bad char %q in %q", r, n)
		}
	}
	if a, b := c.NextName("a"), c.NextName("a"); a == b {
		t.Fatal("names repeat")
	}
}

func dbName(url string) string {
	s := url[strings.LastIndex(url, "/")+1:]
	return strings.TrimSuffix(s, "?sslmode=disable")
}
