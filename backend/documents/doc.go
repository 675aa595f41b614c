// Package documents holds channel content as Automerge documents
// (architecture.md "Layers"; issue 5 "Messages"; spec/lifecycle.md
// "Checkpoints"): one chat shard document per channel per UTC day, a channel
// index document listing the shards (the inventory a checkpoint names), and
// the content payload that carries Automerge changes in a `content`
// envelope.
//
// # Rules around Automerge
//
//   - Document ids are deterministic: [IndexID] and [ChatID] derive them from
//     the group id (and the day), so every member names the same document and
//     a receiver creates exactly the document a sender meant.
//   - A change's actor is the envelope author's id followed by 8 random bytes
//     chosen per session; [Document.Apply] rejects a change whose actor is not
//     the author the envelope was signed by.
//   - Received changes are split and checked (framing, checksum, no document
//     or compressed chunks) before Automerge sees them, may arrive in any order
//     and any number of times, and input that is rejected leaves the document
//     exactly as it was.
//   - Time comes from an injected [Clock], randomness from an io.Reader.
//
// The protocol is written down in docs/protocol/documents.md.
package documents
