package engine

import (
	"context"
	"time"

	"weald/backend/documents"
	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/wire"
)

// Last-seen dates of devices for the admin member list (issue 12), from
// what this client legitimately holds and nothing else: the newest day a
// device wrote a chat message for, in the logs of the channels this client
// reads (the day is the author's, inside the signed and encrypted content),
// and the newest roster operation the device signed (its created_at;
// what it signs to join does not count, nor does a rotated recovery key). A device with
// neither is "not seen since joining". It is a lower bound:
// a device active only in channels this client is not in is not seen.

// noteSeen records that author wrote a chat change for day in g. A day
// after tomorrow (by this clock) is not believed.
func (e *Engine) noteSeen(g *group, author wire.ID, day documents.Day) {
	if day.Start().After(e.now().Add(24 * time.Hour)) {
		return
	}
	k := hexID(author).hex()
	if uint32(day) <= g.rec.Seen[k] {
		return
	}
	if g.rec.Seen == nil {
		g.rec.Seen = map[string]uint32{}
	}
	g.rec.Seen[k] = uint32(day)
}

// joiningOps are what a device signs to join (its redeem-invite, the
// recovery principal of a new user): not activity since joining.
var joiningOps = map[roster.OpType]bool{roster.OpRedeemInvite: true, roster.OpAdmitRecovery: true}

// LastSeen returns, per device (hex id) this client has seen active, the
// newest date it saw: a chat day (its start, UTC) or a roster operation's
// created_at, whichever is later.
func (e *Engine) LastSeen(ctx context.Context) (map[string]time.Time, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string]time.Time{}
	note := func(k string, t time.Time) {
		if t.After(out[k]) {
			out[k] = t
		}
	}
	for _, g := range e.groups {
		for k, d := range g.rec.Seen {
			note(k, documents.Day(d).Start())
		}
	}
	ops, err := e.db.rosterOps(ctx)
	if err != nil {
		return nil, err
	}
	limit := e.now().Add(24 * time.Hour)
	for _, b := range ops {
		op, err := roster.Decode(b)
		if err != nil || op.Actor.Kind != identity.KindDevice || op.CreatedAt.After(limit) || joiningOps[op.Type()] {
			continue
		}
		note(hexID(op.Actor.ID).hex(), op.CreatedAt.UTC())
	}
	return out, nil
}
