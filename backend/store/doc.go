// Package store is the client's SQLite database, one file per workspace
// (architecture.md "Layers": store/; issue 5), at
// <data>/workspaces/<workspace-id-hex>/weald.db.
//
// The schema is the numbered files in schema/, embedded in the binary and
// applied in order by a small migration runner: each migration runs in one
// transaction together with the row recording it, so a crash leaves the old
// version or the new one; a database newer than this build is refused with
// [ErrTooNew]; running the runner again changes nothing.
//
// All access goes through [Store.Update] and [Store.View] and the typed
// methods of [Tx]; there is no SQL outside this package. The database runs
// in WAL mode with synchronous=FULL, so a committed transaction survives a
// power cut: the outbox and the author chains depend on it (an envelope
// sent but forgotten would be written again with the same ctr, a fork).
//
// What the tables hold and why is in docs/protocol/store.md.
package store
