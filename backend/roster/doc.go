// Package roster implements the workspace roster: the hash-chained, signed
// sequence of RosterOperations that is Weald's authorization state and
// membership transparency log (gaps.md "Identity and the roster"), including
// GroupPolicy records (spec/channels.md "Group policy", "Default channels",
// "Explicit groups and the pending add", "Limits") and invites (gaps.md
// "Invites and bootstrap").
//
// # Chain
//
// Each operation names the head it extends; head = SHA-256(operation bytes)
// and the head of the empty roster is 32 zero bytes (conventions.md). The
// relay appends by compare-and-swap on that head, and only operations this
// package's rules accept against the stored roster (docs/protocol/roster.md
// "Relay append").
//
// # Validation
//
// [Validate] folds a chain into a [State]; [State.Apply] checks one operation
// against the state before it (who may sign what, the legal policy
// combinations, immutability, last-admin protection, limits) and either
// applies it completely or returns an [*Error] naming the index and reason
// and leaves the state exactly as it was. A chain is rejected from the first
// invalid operation.
//
// The wire format and rules are written down in docs/protocol/roster.md.
package roster
