package app

import (
	"fmt"
	"strings"

	"weald/backend/engine"
)

// MessagePage is a window of a channel's history, oldest first.
type MessagePage struct {
	Messages []Message `json:"messages"`
	// More says that older messages exist before the first one.
	More bool `json:"more"`
}

// MaxPage bounds the messages of one MessagesBefore call, so that opening a
// long channel never ships its whole history over the bridge.
const MaxPage = 500

// seededHistory adds synthetic messages to a channel's history. It is nil
// except in the e2e build, whose seeding hook (seed_e2e.go) sets it so that a
// browser benchmark can open a channel of 100,000 messages.
var seededHistory func(ws, channel string) []Message

// MessagesBefore returns up to limit (1 to MaxPage) messages of a channel
// older than the message with id before ("" for the newest ones), oldest
// first, and whether older ones remain. It reads one page of the engine's
// message index (never the whole history), with #general's join notices
// ("Sam joined", engine/joined.go) in their place; the newest page also carries
// this device's outbox (pending and failed messages) after the log.
func (w *Workspaces) MessagesBefore(ws, channel, before string, limit int) (MessagePage, error) {
	if limit < 1 || limit > MaxPage {
		return MessagePage{}, &Error{Code: "bad_request/limit", Message: fmt.Sprintf("A page holds from 1 to %d messages.", MaxPage)}
	}
	var seeded []Message
	if seededHistory != nil {
		seeded = seededHistory(strings.ToLower(ws), strings.ToLower(channel))
	}
	if before != "" && len(seeded) > 0 && strings.HasPrefix(before, "seed-") {
		return page(seeded, before, limit)
	}
	r, err := w.run(ws)
	if err != nil {
		return MessagePage{}, err
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	user := r.eng.Status().User
	var queued []engine.Message
	if before == "" {
		if queued, err = outboxOf(r, channel); err != nil {
			return MessagePage{}, err
		}
	} else if q, qerr := outboxOf(r, channel); qerr == nil && hasID(q, before) {
		before = "" // the outbox is newer than the log: the page before it is the log's newest
	}
	msgs, more, merr := r.eng.TimelineBefore(ctx, channel, before, limit)
	if merr != nil {
		return MessagePage{}, toError(merr)
	}
	out := make([]Message, 0, len(msgs)+len(queued))
	for _, m := range append(msgs, queued...) {
		out = append(out, w.toMessage(r, user, strings.ToLower(channel), m))
	}
	if !more && len(seeded) > 0 && len(msgs) < limit {
		// The seeded history is older than anything real in the channel.
		n := min(limit-len(msgs), len(seeded))
		out = append(append([]Message{}, seeded[len(seeded)-n:]...), out...)
		more = n < len(seeded)
	}
	return MessagePage{Messages: out, More: more}, nil
}

func outboxOf(r *wsRun, channel string) ([]engine.Message, *Error) {
	q, err := r.eng.Outbox(channel)
	if err != nil {
		return nil, toError(err)
	}
	return q, nil
}

func hasID(ms []engine.Message, id string) bool {
	for _, m := range ms {
		if m.ID == id {
			return true
		}
	}
	return false
}

// page cuts the window of up to limit messages before the one with id before.
func page(all []Message, before string, limit int) (MessagePage, error) {
	end := len(all)
	if before != "" {
		end = -1
		for i := len(all) - 1; i >= 0; i-- {
			if all[i].ID == before {
				end = i
				break
			}
		}
		if end < 0 {
			return MessagePage{}, &Error{Code: "bad_request/cursor", Message: "That message is not in this channel's history; open the channel again."}
		}
	}
	start := max(0, end-limit)
	return MessagePage{Messages: append([]Message{}, all[start:end]...), More: start > 0}, nil
}
