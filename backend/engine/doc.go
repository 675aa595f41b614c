// Package engine is one workspace's running client: bootstrap of a new
// workspace in the spec's order, resumed on every launch until complete
// and only then ready (spec/channels.md "Ordering at bootstrap and at
// join", "A partial bootstrap is resumed"); the roster kept in sync and
// validated; MLS groups for the root and channels; channel content as
// Automerge chat shards (backend/documents) encrypted under the history key of
// open groups or the epoch key of closed groups (backend/groups); invite
// creation and redemption; the self-join loop; validation of external
// commits with eviction; and events and progress for a UI.
//
// Protocol: docs/protocol/groups.md and docs/protocol/invites.md.
//
// An Engine is safe for concurrent use; its methods serialise on one lock.
package engine
