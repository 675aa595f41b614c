// Package store owns every byte the client persists (architecture.md
// "Layers": store/): one SQLite database per workspace, state.db in the
// workspace's directory, and app.db ([OpenApp]), what the desktop app or the
// CLI keeps outside any workspace (UI preferences, project folders, the
// profile name, the current workspace).
//
// The schema is the numbered files in schema/, embedded in the binary and
// applied in order by a small migration runner: each migration runs in one
// transaction together with the row recording it, so a crash leaves the old
// version or the new one; a database newer than this build is refused with
// [ErrTooNew]; running the runner again changes nothing. Migration 0001 is
// the schema the engine wrote before this package owned it, so state.db
// files of earlier versions open and are carried forward.
//
// All access goes through [Store.Update] and [Store.View] and the methods of
// [Tx]; there is no SQL outside this package. The database runs in WAL mode
// with synchronous=FULL, so a committed transaction survives a power cut.
// Files are 0600 in a 0700 directory whatever the umask. Every value of a
// workspace database but the roster operations is sealed with a key kept in
// the OS keyring, or in a 0600 key file where there is none (keys.go).
//
// What the tables hold and why is in docs/protocol/store.md.
package store
