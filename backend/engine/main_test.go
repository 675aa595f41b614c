package engine

import (
	"os"
	"testing"

	"weald/backend/internal/pgtest"
)

// TestMain stops the PostgreSQL cluster a test started (pgtest starts it
// lazily: only TestCompactionOnPostgres does).
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
