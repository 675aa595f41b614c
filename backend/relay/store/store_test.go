package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"weald/backend/internal/pgtest"
	"weald/backend/wire"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func engines(t *testing.T, fn func(t *testing.T, open func() Store)) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "relay.db")
		fn(t, func() Store {
			st, err := OpenSQLite(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.NewDatabase(t)
		fn(t, func() Store {
			st, err := OpenPostgres(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	})
}

func tid(s string) wire.ID {
	var id wire.ID
	copy(id[:], s)
	return id
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// insert writes n envelopes of size bytes into group g of workspace ws,
// creating both if needed, with no accept-path logic at all.
func insert(t *testing.T, st Store, ws, g wire.ID, from, n, size int) {
	t.Helper()
	ctx := ctxT(t)
	err := st.Update(ctx, func(tx Tx) error {
		if _, err := tx.Workspace(ctx, ws); errors.Is(err, ErrNotFound) {
			if err := tx.CreateWorkspace(ctx, ws, make([]byte, 32), 1); err != nil {
				return err
			}
		}
		if _, err := tx.Group(ctx, ws, g); errors.Is(err, ErrNotFound) {
			if err := tx.CreateGroup(ctx, ws, g, 1); err != nil {
				return err
			}
		}
		for i := from; i < from+n; i++ {
			r := EnvelopeRow{Seq: uint64(i), Hash: tid(string(rune('a' + i))), AcceptedAt: 1,
				Envelope: wire.Envelope{Group: g, Kind: wire.KindContent, Author: tid("author"), Ctr: uint64(i), CT: make([]byte, size)}}
			if err := tx.InsertEnvelope(ctx, ws, &r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func counters(t *testing.T, st Store, ws wire.ID) WorkspaceStats {
	t.Helper()
	var s WorkspaceStats
	ctx := ctxT(t)
	if err := st.View(ctx, func(tx Tx) error { var err error; s, err = tx.Stats(ctx, ws, 0); return err }); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestByteCounterTrigger: the counter is kept by the database trigger on
// insert and delete, per workspace, resolved from the group's row.
func TestByteCounterTrigger(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, open func() Store) {
		st := open()
		ctx := ctxT(t)
		w1, w2 := tid("w1"), tid("w2")
		insert(t, st, w1, tid("g1"), 1, 5, 10)
		insert(t, st, w1, tid("g2"), 1, 3, 7)
		insert(t, st, w2, tid("g3"), 1, 2, 100)
		insert(t, st, w1, tid("g1"), 6, 1, 0)
		if s := counters(t, st, w1); s.LogBytes != 71 || s.SumCT != 71 || s.Envelopes != 9 || s.Groups != 2 {
			t.Fatalf("w1 = %+v", s)
		}
		if s := counters(t, st, w2); s.LogBytes != 200 || s.SumCT != 200 {
			t.Fatalf("w2 = %+v", s)
		}
		// A rolled-back insert leaves the counter alone.
		boom := errors.New("boom")
		err := st.Update(ctx, func(tx Tx) error {
			r := EnvelopeRow{Seq: 99, Envelope: wire.Envelope{Group: tid("g1"), Kind: 1, Author: tid("x"), Ctr: 99, CT: make([]byte, 1000)}}
			if err := tx.InsertEnvelope(ctx, w1, &r); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatal(err)
		}
		var n, bytes int64
		err = st.Update(ctx, func(tx Tx) error {
			if err := tx.AddAnchors(ctx, w1, tid("g1"), []uint64{2}); err != nil {
				return err
			}
			n, bytes, err = tx.DropEnvelopesBelow(ctx, w1, tid("g1"), 4, []wire.EnvelopeRef{{Author: tid("author"), Ctr: 3}}, nil)
			return err
		})
		if err != nil || n != 2 || bytes != 20 {
			t.Fatalf("drop = %d rows %d bytes %v, want 2 rows (seq 1, 3; 2 is an anchor) 20 bytes", n, bytes, err)
		}
		if s := counters(t, st, w1); s.LogBytes != 51 || s.SumCT != 51 || s.Envelopes != 7 {
			t.Fatalf("after drop w1 = %+v", s)
		}
		// Reopening finds the same state (schema not reapplied).
		st.Close()
		st = open()
		if s := counters(t, st, w1); s.LogBytes != 51 {
			t.Fatalf("after reopen w1 = %+v", s)
		}
	})
}

// TestDropDeletesOnlyWhatTheBarrierCovers: below the barrier seq a drop
// deletes an author's envelopes up to its entry in the checkpoint's author
// barrier only; an author the barrier leaves out, and one's envelopes past
// its entry (sent after the checkpoint's writer read the log), stay.
func TestDropDeletesOnlyWhatTheBarrierCovers(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, open func() Store) {
		st := open()
		ctx := ctxT(t)
		ws, g := tid("w1"), tid("g1")
		insert(t, st, ws, tid("other"), 1, 1, 1) // creates the workspace
		log := []struct {
			author string
			ctr    uint64
		}{{"a", 1}, {"b", 1}, {"a", 2}, {"c", 1}, {"b", 2}, {"a", 3}, {"cp", 1}}
		err := st.Update(ctx, func(tx Tx) error {
			if err := tx.CreateGroup(ctx, ws, g, 1); err != nil {
				return err
			}
			for i, x := range log {
				r := EnvelopeRow{Seq: uint64(i + 1), Hash: tid(fmt.Sprint(i)), AcceptedAt: 1,
					Envelope: wire.Envelope{Group: g, Kind: wire.KindContent, Author: tid(x.author), Ctr: x.ctr, CT: make([]byte, 10)}}
				if err := tx.InsertEnvelope(ctx, ws, &r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// The barrier (seq 7) covers a up to 2 and b up to 1; "a" 3 came
		// after the writer's read (seq 6, still below the barrier seq).
		covered := []wire.EnvelopeRef{{Author: tid("a"), Ctr: 2}, {Author: tid("b"), Ctr: 1}, {Author: tid("nobody"), Ctr: 9}}
		var n, bytes int64
		err = st.Update(ctx, func(tx Tx) error {
			n, bytes, err = tx.DropEnvelopesBelow(ctx, ws, g, 7, covered, nil)
			return err
		})
		if err != nil || n != 3 || bytes != 30 {
			t.Fatalf("drop = %d rows %d bytes %v, want 3 rows (seq 1, 2, 3) 30 bytes", n, bytes, err)
		}
		var left []uint64
		if err := st.View(ctx, func(tx Tx) error {
			rows, err := tx.Envelopes(ctx, ws, g, 0, 100, 1<<20)
			for _, r := range rows {
				left = append(left, r.Seq)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(left) != "[4 5 6 7]" {
			t.Fatalf("after the drop the group holds seqs %v, want [4 5 6 7]", left)
		}
		if s := counters(t, st, ws); s.LogBytes != s.SumCT || s.Envelopes != 5 {
			t.Fatalf("counters after the drop = %+v", s)
		}
	})
}

// TestEnvelopesImmutable: the database refuses to change an accepted
// envelope or move a group to another workspace.
func TestEnvelopesImmutable(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, open func() Store) {
		st := open()
		ctx := ctxT(t)
		insert(t, st, tid("w1"), tid("g1"), 1, 1, 10)
		insert(t, st, tid("w2"), tid("g2"), 1, 1, 10)
		raw := st.(interface{ rawDB() *sql.DB }).rawDB()
		q := st.(interface{ rebind(string) string }).rebind
		if _, err := raw.ExecContext(ctx, q(`UPDATE envelopes SET ct = ? WHERE seq = 1`), []byte("x")); err == nil || !strings.Contains(err.Error(), "immutable") {
			t.Errorf("update envelope: %v", err)
		}
		if _, err := raw.ExecContext(ctx, q(`UPDATE groups SET workspace_id = ? WHERE id = ?`), b(tid("w2")), b(tid("g1"))); err == nil {
			t.Error("a group moved to another workspace")
		}
		if s := counters(t, st, tid("w1")); s.LogBytes != 10 {
			t.Errorf("w1 = %+v", s)
		}
	})
}

// TestConcurrentOpen: several relays starting at once on one database apply
// the schema once.
func TestConcurrentOpen(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, open func() Store) {
		var wg sync.WaitGroup
		stores := make([]Store, 3)
		for i := range stores {
			wg.Add(1)
			go func(i int) { defer wg.Done(); stores[i] = open() }(i)
		}
		wg.Wait()
		for _, st := range stores {
			if st == nil {
				t.Fatal("an open failed")
			}
		}
		insert(t, stores[0], tid("w"), tid("g"), 1, 2, 5)
		if s := counters(t, stores[2], tid("w")); s.LogBytes != 10 {
			t.Errorf("counter through another store = %d", s.LogBytes)
		}
	})
}

func TestChangePayload(t *testing.T) {
	t.Parallel()
	for _, c := range []Change{
		{Kind: ChangeEnvelopes, Workspace: tid("w"), Group: tid("g"), Seq: 42},
		{Kind: ChangeDrop, Workspace: tid("w"), Group: tid("g"), Seq: 7},
		{Kind: ChangeAccessSet, Workspace: tid("w"), Version: 3},
		{Kind: ChangeRoster, Workspace: tid("w"), Version: 9, Head: tid("h")},
		{Kind: ChangeWelcome, Workspace: tid("w"), Group: tid("g"), Seq: 5, Head: tid("k")},
	} {
		got, err := ParseChange(c.Payload())
		if err != nil || got != c {
			t.Errorf("%q: %+v %v", c.Payload(), got, err)
		}
	}
	for _, bad := range []string{"", "x", "e 00 11 2", "a " + tid("w").String(), "q " + tid("w").String() + " 1", "e " + tid("w").String() + " zz 1"} {
		if _, err := ParseChange(bad); err == nil {
			t.Errorf("ParseChange(%q) succeeded", bad)
		}
	}
}

// TestChangesAcrossStores: on PostgreSQL a change committed through one
// Store (one relay process) reaches the Changes of another; on SQLite the
// committing Store reports its own.
func TestChangesAcrossStores(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, open func() Store) {
		writer := open()
		reader := writer
		if writer.Engine() == "postgres" {
			reader = open()
		}
		ctx := ctxT(t)
		ch, err := reader.Changes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		insert(t, writer, tid("w"), tid("g"), 1, 1, 1)
		want := Change{Kind: ChangeEnvelopes, Workspace: tid("w"), Group: tid("g"), Seq: 5}
		// A rolled-back change is never reported.
		_ = writer.Update(ctx, func(tx Tx) error {
			_ = tx.Emit(ctx, Change{Kind: ChangeAccessSet, Workspace: tid("w"), Version: 99})
			return errors.New("rollback")
		})
		if err := writer.Update(ctx, func(tx Tx) error { return tx.Emit(ctx, want) }); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-ch:
			if got != want {
				t.Errorf("change = %+v, want %+v", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no change within 5 s")
		}
	})
}

// TestSQLiteFilesArePrivate: the relay's SQLite database and its -wal and
// -shm files are readable by their owner only (issue 11: every file
// written is 0600), whatever the umask lets through; a database file
// others could read is narrowed on open.
func TestSQLiteFilesArePrivate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "relay.db")
	check := func(when string) {
		t.Helper()
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if m := fi.Mode().Perm(); m != 0o600 {
				t.Errorf("%s: %s is %o, want 600", when, filepath.Base(p), m)
			}
		}
	}
	st, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	check("created")
	st.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o644); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	st, err = OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	check("reopened")
}

// TestDeleteUnconsumedWorkspace: a workspace is deleted only while its
// genesis key is unconsumed; a consumed one is kept, and one with rows
// referring to it (envelopes) is never deleted either.
func TestDeleteUnconsumedWorkspace(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, open func() Store) {
		st := open()
		ctx := ctxT(t)
		fresh, consumed, used := tid("fresh"), tid("consumed"), tid("used")
		err := st.Update(ctx, func(tx Tx) error {
			for _, ws := range []wire.ID{fresh, consumed} {
				if err := tx.CreateWorkspace(ctx, ws, make([]byte, 32), 1); err != nil {
					return err
				}
			}
			return tx.ConsumeGenesis(ctx, consumed)
		})
		if err != nil {
			t.Fatal(err)
		}
		insert(t, st, used, tid("g"), 0, 1, 10)
		del := func(ws wire.ID) (bool, error) {
			var ok bool
			err := st.Update(ctx, func(tx Tx) error { var err error; ok, err = tx.DeleteUnconsumedWorkspace(ctx, ws); return err })
			return ok, err
		}
		if ok, err := del(consumed); err != nil || ok {
			t.Fatalf("a consumed workspace: deleted %v, %v", ok, err)
		}
		if ok, err := del(used); ok || err == nil {
			t.Fatalf("a workspace with envelopes: deleted %v, %v", ok, err)
		}
		if ok, err := del(fresh); err != nil || !ok {
			t.Fatalf("an unconsumed workspace: deleted %v, %v", ok, err)
		}
		if _, err := del(fresh); !errors.Is(err, ErrNotFound) {
			t.Fatalf("deleting it again: %v, want not found", err)
		}
		err = st.View(ctx, func(tx Tx) error {
			for _, ws := range []wire.ID{consumed, used} {
				if _, err := tx.Workspace(ctx, ws); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("a kept workspace is gone: %v", err)
		}
	})
}
