package store

import (
	"context"
	"strings"
	"testing"
)

func keptStmts(s *Store) int {
	n := 0
	s.stmts.Range(func(_, _ any) bool { n++; return true })
	return n
}

// A statement is compiled once: the first transaction that runs it keeps
// it for the store, and later transactions run the kept one; what they
// read and write is the same as before.
func TestStatementsAreKeptAfterTheFirstTransaction(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	put := func(g byte, v string) {
		t.Helper()
		if err := s.Update(ctx, func(tx *Tx) error { return tx.PutGroup([32]byte{g}, []byte(v)) }); err != nil {
			t.Fatal(err)
		}
	}
	before := keptStmts(s)
	put(1, "one")
	kept := keptStmts(s)
	if kept <= before {
		t.Fatalf("kept statements %d after a write, %d before: the write's statement was not kept", kept, before)
	}
	put(2, "two")
	put(1, "uno")
	if n := keptStmts(s); n != kept {
		t.Fatalf("kept statements went from %d to %d running the same write again", kept, n)
	}
	var got map[[32]byte][]byte
	if err := s.View(ctx, func(tx *Tx) (err error) { got, err = tx.Groups(); return err }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got[[32]byte{1}]) != "uno" || string(got[[32]byte{2}]) != "two" {
		t.Fatalf("groups after the writes = %q, want 1: uno, 2: two", got)
	}
}

// A statement that does not compile reports its error where it runs, and
// is not kept.
func TestAStatementThatDoesNotCompileIsReportedNotKept(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	before := keptStmts(s)
	err := s.View(ctx, func(tx *Tx) error {
		var n int
		return tx.row(`SELECT count(*) FROM no_such_table`).Scan(&n)
	})
	if err == nil || !strings.Contains(err.Error(), "no_such_table") {
		t.Fatalf("a query on a missing table: %v", err)
	}
	err = s.Update(ctx, func(tx *Tx) error { _, err := tx.exec(`DELETE FROM no_such_table`); return err })
	if err == nil || !strings.Contains(err.Error(), "no_such_table") {
		t.Fatalf("a delete from a missing table: %v", err)
	}
	if n := keptStmts(s); n != before {
		t.Fatalf("kept statements went from %d to %d after statements that do not compile", before, n)
	}
}
