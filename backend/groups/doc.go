// Package groups holds the group rules as the engine applies them: the
// enrolment key derived from the workspace root's epoch, the sealed
// standing bundles (groupinfo.publish, history.publish), content
// encryption under history keys (open groups) and per-epoch exporter keys
// (closed groups), the join data a self-joiner puts in its external
// commit's authenticated_data, the receiving-side validation of external
// commits, the invite link and the per-invite bundle.
//
// It implements spec/channels.md "Group policy", "Self-join" and
// "Interaction with removal", and design/gaps.md "Groups and keys" and
// "Invites and bootstrap". The formats are written down in
// docs/protocol/groups.md and docs/protocol/invites.md.
//
// Decoders never panic on untrusted bytes; errors carry stable codes
// (groups/..., invite/..., join/...) and one sentence.
package groups
