// Package mls is the group layer of MLS 1.0 (RFC 9420): a [Group] is one
// member's state of one group. It creates groups ([NewGroup]), stages and
// merges commits ([Group.Commit], RFC 9420 §12.4), processes handshake and
// application messages ([Group.Protect] and the process calls, §6), joins
// by Welcome (§12.4.3.1) or external commit ([ExternalJoin], §12.4.3.2),
// and saves and loads its state.
//
// The lower layers are its subpackages, each citing its RFC section:
// codec (§2.1), suite (§5), treemath and tree (§4, §7), keyschedule (§8),
// secrettree (§9), framing (§6) and proposal (§12.1). Errors are errcode
// errors whose codes start with "mls/"; untrusted bytes never panic (fuzzed).
// docs/protocol/mls.md describes it as built; Weald's use of it (policy,
// roster-bound credentials) is in backend/groups and backend/engine.
package mls
