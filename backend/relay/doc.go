// Package relay is the relay's transport-independent accept path: the
// [Service] that provisions workspaces, accepts access sets, authenticates
// principals, accepts envelopes onto per-group logs, serves fetches, runs the
// roster compare-and-swap and the key-package directory, and executes signed
// drop_before instructions (design/gaps.md "Relay protocol"; spec/lifecycle.md
// "Removing a person" step 5, "Provisional grants", "Checkpoints",
// "Dropping", "The workspace byte budget", "What the relay never does").
//
// The WebSocket transport is in package relay/server; the state in
// relay/store. Every refusal is a *wire.Error with a stable code, and a
// refused request changes nothing: each request runs in one store
// transaction that rolls back on any refusal. The relay never imports the MLS
// or document packages: it reads only the relay-visible kinds (checkpoint,
// retention.transition, retention.policy) and treats every other ct as
// opaque bytes. Roster operations are signed plaintext: the relay folds each
// workspace's roster with package roster and appends only operations signed
// by the connection's principal that every client accepts (rosterguard.go;
// docs/protocol/roster.md "Relay append").
//
// A send that continues chains the Service accepted itself takes the fast
// path: its seqs are planned in memory and store.Store.Send checks a gate
// and inserts in one transaction (docs/protocol/wire.md "The fast path");
// anything else, and any gate that does not hold, takes the general path,
// which names every refusal.
//
// The only deletion of envelopes is [Service.DropBefore]. The byte budget
// refuses; RETENTION_DAYS only warns (in [Service.Stats]).
package relay
