package app

import (
	"fmt"
	"strings"
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
// first, and whether older ones remain.
func (w *Workspaces) MessagesBefore(ws, channel, before string, limit int) (MessagePage, error) {
	if limit < 1 || limit > MaxPage {
		return MessagePage{}, &Error{Code: "bad_request/limit", Message: fmt.Sprintf("A page holds from 1 to %d messages.", MaxPage)}
	}
	all, err := w.Messages(ws, channel)
	if err != nil {
		return MessagePage{}, err
	}
	if seededHistory != nil {
		if extra := seededHistory(strings.ToLower(ws), strings.ToLower(channel)); len(extra) > 0 {
			// The seeded history is older than anything real in the channel.
			all = append(append([]Message(nil), extra...), all...)
		}
	}
	return page(all, before, limit)
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
