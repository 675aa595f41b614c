package engine

import (
	"context"
	"encoding/hex"
	"fmt"

	"weald/backend/errcode"
	"weald/backend/roster"
	"weald/backend/wire"
)

// Gap and fork of the membership log (spec/lifecycle.md "Detection":
// "transparency-log gap or fork on sync"; docs/protocol/roster.md "Gap and
// fork"). The roster is a hash chain: each operation names the head it was
// built on. Beside an invalid operation (roster/invalid_op), a hostile or
// broken relay can serve
//   - a gap: fewer operations than this device already holds (a rollback),
//     a page that does not start after this device's last, or an operation
//     built on one this device never received (one left out);
//   - a fork: an operation built on an earlier operation of this device's
//     log than its newest (a branch), or a head at this device's length
//     that is not this device's head.
// Either way the client keeps the roster it holds, trusts nothing after it,
// refuses roster writes (roster/untrusted) and alerts once.

// logBreak is where the relay's log stops continuing this device's.
type logBreak struct {
	kind  breakKind
	index int // this device's roster length at the break
	// breakOp: the served operation that does not continue it, and the
	// head it was built on
	op   []byte
	prev roster.Head
	// otherwise the relay's own claim
	relayHead  wire.ID
	relayIndex uint64
}

type breakKind int

const (
	breakOp        breakKind = iota // an operation not built on this device's head
	breakShorter                    // the relay's log is shorter than this device's
	breakSkip                       // a page that does not start after this device's last operation
	breakWithheld                   // more operations claimed, none served
	breakOtherHead                  // the same length, another head
)

// Alert codes of a broken membership log.
const (
	AlertLogGap  errcode.Code = "roster/log_gap"
	AlertLogFork errcode.Code = "roster/log_fork"
)

// rosterAnswerBreak checks a ROSTER_FETCH answer's own claims against the
// roster this device holds, before any operation is read.
func (e *Engine) rosterAnswerBreak(r *wire.RosterOps) *logBreak {
	n := e.roster.Len()
	b := &logBreak{index: n, relayHead: r.Head, relayIndex: r.HeadIndex}
	switch {
	case r.HeadIndex < uint64(n):
		b.kind = breakShorter
	case len(r.Ops) > 0 && r.FirstIndex != uint64(n)+1:
		b.kind = breakSkip
	case len(r.Ops) == 0 && r.HeadIndex > uint64(n):
		b.kind = breakWithheld
	case len(r.Ops) == 0 && n > 0 && r.Head != wire.ID(e.roster.Head()):
		b.kind = breakOtherHead
	default:
		return nil
	}
	return b
}

// rosterLogBreak raises roster/log_gap or roster/log_fork for b, once, and
// marks the roster stuck at this device's head.
func (e *Engine) rosterLogBreak(ctx context.Context, b logBreak) {
	const kept = " The roster this device holds is kept; nothing after it is trusted, and nothing can be added to the roster until the relay serves this device's log again."
	a := Alert{Code: string(AlertLogGap), Op: &AlertOp{Index: b.index, Head: hex.EncodeToString(b.relayHead[:])}}
	switch b.kind {
	case breakOp:
		h := roster.HeadOf(b.op)
		a.Op.Head = hex.EncodeToString(h[:])
		if d, err := roster.Decode(b.op); err == nil {
			a.Actor = d.Actor.String()
		}
		if at, ok := e.rosterIndexOf(ctx, b.prev); ok {
			a.Code = string(AlertLogFork)
			a.Message = fmt.Sprintf("The relay serves a membership log that branches from this device's: its operation %d (%s) is built on operation %d, not on this device's newest, so two different histories exist.",
				b.index, a.Op.Head[:16], at)
		} else {
			a.Message = fmt.Sprintf("The relay serves membership-log operation %d (%s) built on an operation this device never received: the relay lost or withholds part of the log.",
				b.index, a.Op.Head[:16])
		}
	case breakShorter:
		a.Message = fmt.Sprintf("The relay's membership log ends at operation %d, but this device holds %d: the relay lost or withholds operations (a rollback).",
			b.relayIndex, b.index)
	case breakSkip:
		a.Message = fmt.Sprintf("The relay skipped membership-log operations after this device's %d: it lost or withholds part of the log.", b.index)
	case breakWithheld:
		a.Message = fmt.Sprintf("The relay says its membership log has %d operations but serves none after this device's %d: it withholds part of the log.",
			b.relayIndex, b.index)
	case breakOtherHead:
		a.Code = string(AlertLogFork)
		a.Message = fmt.Sprintf("The relay's membership log has %d operations, as this device's does, but ends in another operation (%s), so two different histories exist.",
			b.index, a.Op.Head[:16])
	}
	a.Message += kept
	e.rosterStuck, e.rosterBreak = a.Op, a.Code
	e.raise(ctx, a)
}

// rosterIndexOf finds the operation of this device's roster whose head is
// h (its 0-based index).
func (e *Engine) rosterIndexOf(ctx context.Context, h roster.Head) (int, bool) {
	ops, err := e.db.rosterOps(ctx)
	if err != nil {
		return 0, false
	}
	for i := len(ops) - 1; i >= 0; i-- {
		if roster.HeadOf(ops[i]) == h {
			return i, true
		}
	}
	return 0, false
}
