package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"weald/backend/internal/pgtest"
	"weald/backend/wire"
)

// A database at the schema before groups were keyed by workspace (SQLite 4,
// PostgreSQL 6) migrates: its groups, envelopes, author heads, retention
// keys, policies, checkpoints and anchors keep their rows under their
// workspace, the byte counter still follows inserts and deletes, and
// another workspace can then use the same group id.
func TestGroupsByWorkspaceMigration(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "relay.db")
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)&_txlock=immediate")
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		checkGroupsMigration(t, ctx, newSQLStore(db, sqliteDialect), 4, func() Store {
			db.Close()
			st, err := OpenSQLite(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.NewDatabase(t)
		db, err := sql.Open("pgx", url)
		if err != nil {
			t.Fatal(err)
		}
		checkGroupsMigration(t, ctx, newSQLStore(db, postgresDialect), 6, func() Store {
			db.Close()
			st, err := OpenPostgres(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	})
}

func checkGroupsMigration(t *testing.T, ctx context.Context, old *sqlStore, version int, reopen func() Store) {
	if err := old.migrateTo(ctx, version); err != nil {
		t.Fatal(err)
	}
	ws, other, g := tid("ws"), tid("other"), tid("group")
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := old.db.ExecContext(ctx, old.q(q), args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, w := range []wire.ID{ws, other} {
		exec(`INSERT INTO workspaces (id, genesis_key, roster_head, created_at) VALUES (?, ?, ?, 1)`, b(w), make([]byte, 32), make([]byte, 32))
	}
	exec(`INSERT INTO groups (id, workspace_id, created_at) VALUES (?, ?, 1)`, b(g), b(ws))
	for i := 1; i <= 3; i++ {
		exec(`INSERT INTO envelopes (group_id, seq, author, ctr, prev, hash, kind, ct, sig, accepted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
			b(g), i, b(tid("author")), i, make([]byte, 32), b(tid(string(rune('a'+i)))), int(wire.KindContent), make([]byte, 10), make([]byte, 64))
	}
	exec(`INSERT INTO author_heads (group_id, author, ctr, hash) VALUES (?, ?, 9, ?)`, b(g), b(tid("gone")), b(tid("h")))
	exec(`INSERT INTO retention_keys (group_id, key, prev_key, epoch, seq) VALUES (?, ?, ?, 1, 1)`, b(g), []byte("k"), []byte{})
	exec(`INSERT INTO retention_policies (group_id, version, seq, author, ctr, hash, text_window_days, media_window_days, body)
		VALUES (?, 1, 2, ?, 2, ?, 7, 7, ?)`, b(g), b(tid("author")), b(tid("b")), []byte("p"))
	exec(`INSERT INTO checkpoints (group_id, seq, author, ctr, hash, manifest_hash, retention_key) VALUES (?, 3, ?, 3, ?, ?, ?)`,
		b(g), b(tid("author")), b(tid("c")), b(tid("m")), []byte("k"))
	exec(`INSERT INTO anchors (group_id, seq) VALUES (?, 2)`, b(g))

	st := reopen()
	err := st.Update(ctx, func(tx Tx) error {
		gr, err := tx.Group(ctx, ws, g)
		if err != nil || gr.HeadSeq != 3 {
			t.Fatalf("migrated group: %+v %v", gr, err)
		}
		if rows, err := tx.Envelopes(ctx, ws, g, 0, 10, 1<<20); err != nil || len(rows) != 3 || rows[2].Envelope.Group != g {
			t.Fatalf("migrated envelopes: %d %v", len(rows), err)
		}
		if h, err := tx.AuthorHead(ctx, ws, g, tid("gone")); err != nil || h.Ctr != 9 {
			t.Fatalf("migrated author head: %+v %v", h, err)
		}
		if k, err := tx.RetentionKeys(ctx, ws, g); err != nil || len(k) != 1 {
			t.Fatalf("migrated retention keys: %d %v", len(k), err)
		}
		if p, err := tx.LatestPolicy(ctx, ws, g); err != nil || p.Version != 1 {
			t.Fatalf("migrated policy: %+v %v", p, err)
		}
		if _, err := tx.Group(ctx, other, g); err == nil {
			t.Fatal("the migrated group is visible from another workspace")
		}
		if err := tx.CreateGroup(ctx, other, g, 2); err != nil {
			t.Fatalf("another workspace's group with the same id: %v", err)
		}
		r := EnvelopeRow{Seq: 1, AcceptedAt: 2, Hash: tid("o"),
			Envelope: wire.Envelope{Group: g, Kind: wire.KindContent, Author: tid("author"), Ctr: 1, CT: make([]byte, 5)}}
		if err := tx.InsertEnvelope(ctx, other, &r); err != nil {
			t.Fatalf("insert into the other workspace's group: %v", err)
		}
		n, _, err := tx.DropEnvelopesBelow(ctx, ws, g, 3, []wire.EnvelopeRef{{Author: tid("author"), Ctr: 2}}, nil)
		if err != nil || n != 1 { // seq 1 (2 is an anchor)
			t.Fatalf("drop after migration: %d %v", n, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if s := counters(t, st, ws); s.LogBytes != 20 || s.SumCT != 20 || s.Envelopes != 2 || s.Groups != 1 {
		t.Fatalf("ws after migration = %+v", s)
	}
	if s := counters(t, st, other); s.LogBytes != 5 || s.Envelopes != 1 || s.Groups != 1 {
		t.Fatalf("other after migration = %+v", s)
	}
}
