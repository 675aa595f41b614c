package store

import (
	"context"
	"database/sql"
)

// Prepared statements. SQLite compiles every statement it runs; compiling
// was an eighth of the engine tests' CPU, most of it for the same few dozen
// statements (a message indexed, an envelope recorded) run again and again.
// So each statement is compiled once per connection and kept:
//
//   - a transaction keeps the statements it ran (Tx.stmts), so a statement
//     run 100,000 times in one transaction is compiled once;
//   - the Store keeps every statement a transaction ran (Store.stmts),
//     prepared on the database once that transaction is over: the store has
//     one connection, which the transaction holds while it runs.
//
// The statements are the constant strings of this package's methods, so the
// cache is as large as that set (search adds its two variants).

// stmt returns the statement q on this transaction, compiled once.
func (t *Tx) stmt(q string) (*sql.Stmt, error) {
	if st, ok := t.stmts[q]; ok {
		return st, nil
	}
	var st *sql.Stmt
	if kept, ok := t.s.stmts.Load(q); ok {
		st = t.tx.StmtContext(t.ctx, kept.(*sql.Stmt))
	} else {
		var err error
		if st, err = t.tx.PrepareContext(t.ctx, q); err != nil {
			return nil, err
		}
		t.missed = append(t.missed, q)
	}
	if t.stmts == nil {
		t.stmts = make(map[string]*sql.Stmt)
	}
	t.stmts[q] = st
	return st, nil
}

// keep prepares on the database the statements a finished transaction
// compiled for itself, for the transactions after it. A statement that
// does not prepare is left out: the next transaction compiles its own.
func (s *Store) keep(ctx context.Context, missed []string) {
	for _, q := range missed {
		if _, ok := s.stmts.Load(q); ok {
			continue
		}
		st, err := s.db.PrepareContext(context.WithoutCancel(ctx), q)
		if err != nil {
			continue
		}
		if _, loaded := s.stmts.LoadOrStore(q, st); loaded {
			_ = st.Close()
		}
	}
}

// closeStmts closes the kept statements (before the database closes).
func (s *Store) closeStmts() {
	s.stmts.Range(func(q, st any) bool {
		_ = st.(*sql.Stmt).Close()
		s.stmts.Delete(q)
		return true
	})
}

func (t *Tx) exec(q string, args ...any) (sql.Result, error) {
	st, err := t.stmt(q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(t.ctx, args...)
}

func (t *Tx) query(q string, args ...any) (*sql.Rows, error) {
	st, err := t.stmt(q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(t.ctx, args...)
}

func (t *Tx) row(q string, args ...any) *sql.Row {
	st, err := t.stmt(q)
	if err != nil {
		// A *sql.Row carries its error to Scan only from inside
		// database/sql: run the statement unprepared, which reports it.
		return t.tx.QueryRowContext(t.ctx, q, args...)
	}
	return st.QueryRowContext(t.ctx, args...)
}
