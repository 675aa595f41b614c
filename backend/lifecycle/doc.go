// Package lifecycle is the removal of a person (spec/lifecycle.md "Removing
// a person", "If the removed person is the last admin"; spec/channels.md
// "Interaction with removal"): the durable [RemovalOperation], persisted
// before its first step, and [Run], which takes it through the spec's
// steps in order — one roster.revoke of every target principal, one Remove
// commit per group they were in, deletion of the recovery wraps sealed to
// their recovery key, revocation of the invites naming them, a new access
// set without them — and writes the receipt to the membership transparency
// log only after every group rotated and the access set was accepted.
//
// Each step is idempotent and its completion is saved before the next
// starts, so a crash resumes the same operation at the step it stopped in.
// If the authorization head moved before the first MLS commit, the
// operation pauses in [StateNeedsReapproval] with the intervening changes.
//
// The client that runs the steps (backend/engine) implements [Steps]; this
// package holds the order, the bookkeeping and the receipt.
// Protocol: docs/protocol/lifecycle.md.
package lifecycle
