// Package retention is the client half of retention and compaction
// (spec/lifecycle.md "Retention and compaction": "Checkpoints", "Dropping",
// "Interaction with open history", "The workspace byte budget"; design/gaps.md
// "Groups and keys", "Retention policy").
//
//   - keys.go: the retention signing key of each MLS epoch (exporter
//     "weald/retention") and the transitions that chain them.
//   - chain.go: a client's view of a group's transition chain, judged as the
//     relay judges it (backend/relay retention.go).
//   - manifest.go: the sealed checkpoint manifest, the complete document
//     inventory at the author barrier.
//   - checkpoint.go: writing a checkpoint (snapshots proven at their heads)
//     and verifying one as a receiver.
//   - policy.go, steward.go: the retention policy (defaults: text unlimited,
//     media 180 days) and when the steward checkpoints and drops.
//
// The package does no I/O: the engine fetches, decrypts and sends.
// docs/protocol/retention.md is the reference.
package retention
