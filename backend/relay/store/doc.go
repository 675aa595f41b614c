// Package store keeps the relay's state: workspaces, groups, the envelope log
// with its relay-assigned seq, author chain heads, access sets and grants, the
// roster, key packages and the retention objects (spec/lifecycle.md
// "Dropping", "The workspace byte budget"; design/gaps.md "Relay protocol").
//
// Two engines implement [Store]: SQLite (modernc.org/sqlite, the default) and
// PostgreSQL (github.com/jackc/pgx/v5). Each has its schema as numbered .sql
// files embedded with go:embed (schema/sqlite, schema/postgres), applied in
// order and recorded in schema_migrations.
//
// # The byte budget
//
// workspaces.log_bytes is maintained by a database trigger on the envelope
// table, in both engines: an insert adds length(ct), a delete subtracts it, and
// the workspace is resolved from the group's own row. No Go code writes the
// counter. Envelopes are immutable (an UPDATE trigger refuses changes) and a
// group never changes workspace, so the counter cannot drift.
//
// # Deleting
//
// The only statement that deletes envelopes is in [Tx.DropEnvelopesBelow],
// which the relay's drop_before path alone calls (a test walks the source to
// prove it).
//
// # Change notifications
//
// [Tx.Emit] records a [Change]; after the transaction commits, every function
// registered with [Store.Subscribe] in this process is called with it. On
// PostgreSQL the same change is also sent inside the transaction with
// pg_notify on channel [NotifyChannel], payload [Change.Payload], so relay
// processes sharing the database learn of it by LISTEN (delivered only on
// commit).
package store
