package pgtest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

var shared struct {
	mu        sync.Mutex
	inMain    bool
	cluster   *Cluster
	err       error
	templates map[string]*tmpl
}

// tmpl is a database built once per test binary and copied for each
// test that asks for it.
type tmpl struct {
	once sync.Once
	db   string
	err  error
}

// Main runs the tests of a package and stops the shared cluster afterwards.
// Use it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
func Main(m *testing.M) int {
	shared.mu.Lock()
	shared.inMain = true
	shared.mu.Unlock()
	code := m.Run()
	shared.mu.Lock()
	c := shared.cluster
	shared.cluster = nil
	shared.mu.Unlock()
	if c != nil {
		if err := c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest: stop:", err)
		}
	}
	return code
}

// Shared returns the cluster shared by this test binary, starting it on
// first use. It fails the test (never skips) if PostgreSQL cannot be started,
// or if the package's TestMain does not call Main (which tears it down).
//
// Under go test -short it skips the test instead: starting PostgreSQL is the
// slow part of the relay's tests, and make test runs them in full.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: needs PostgreSQL (make test runs it)")
	}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.inMain {
		t.Fatal("pgtest: the package's TestMain must call pgtest.Main(m) so the shared cluster is stopped: " +
			"func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }")
	}
	if shared.cluster == nil && shared.err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), initdbTimeout+startTimeout)
		shared.cluster, shared.err = Start(ctx)
		cancel()
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.cluster
}

// NewDatabase creates a fresh, empty database in the shared cluster for this
// test, drops it when the test ends, and returns its postgres:// URL.
func NewDatabase(t testing.TB) string {
	t.Helper()
	return newDatabase(t, Shared(t), "template0")
}

// NewDatabaseFrom is NewDatabase with the new database a copy of template:
// a database that the first call of this test binary naming template builds
// by running setup on an empty database (a schema migration, say), and that
// every later call copies instead of running setup again. setup must close
// its connections before it returns (a database is copied only while nobody
// is connected to it). A setup error fails every test that asks for the
// template.
func NewDatabaseFrom(t testing.TB, template string, setup func(ctx context.Context, url string) error) string {
	t.Helper()
	c := Shared(t)
	shared.mu.Lock()
	if shared.templates == nil {
		shared.templates = map[string]*tmpl{}
	}
	tp := shared.templates[template]
	if tp == nil {
		tp = &tmpl{db: c.NextName("template " + template)}
		shared.templates[template] = tp
	}
	shared.mu.Unlock()
	tp.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		url, err := c.CreateDatabase(ctx, tp.db)
		if err == nil {
			err = setup(ctx, url)
		}
		if err != nil {
			tp.err = fmt.Errorf("pgtest: template %s: %w", template, err)
		}
	})
	if tp.err != nil {
		t.Fatal(tp.err)
	}
	return newDatabase(t, c, tp.db)
}

func newDatabase(t testing.TB, c *Cluster, template string) string {
	t.Helper()
	name := c.NextName(t.Name())
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	url, err := c.CreateDatabaseFrom(ctx, name, template)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
		defer cancel()
		if err := c.DropDatabase(ctx, name); err != nil {
			t.Logf("pgtest: drop %s: %v", name, err)
		}
	})
	return url
}
