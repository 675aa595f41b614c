package engine

import (
	"bytes"
	"crypto/sha256"
	"sort"

	"weald/backend/documents"
	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/store"
)

// Join notices (issue 17 item 3: "Dana joined" in #general). They are not
// chat messages: nobody sends them and no document holds them. They are
// drawn from the roster when #general's history is read, one per user the
// roster admitted by redeeming an invite (the creator, admitted by genesis,
// gets none), at the time of that operation, under the user's display name
// of now. Being derived, a resync or a restart cannot duplicate them, and a
// rename shows on old notices as it does on old messages.

// KindJoined is Message.Kind of a join notice.
const KindJoined = "joined"

// joinNoticeID is the message id of a user's join notice: fixed by the user
// id, so it is stable across reads and can be a page cursor.
func joinNoticeID(u identity.UserID) documents.MessageID {
	h := sha256.Sum256(append([]byte("weald join notice\x00"), u[:]...))
	return documents.MessageID(h[:16])
}

// joinNotice is one notice with its position in the index's order.
type joinNotice struct {
	at  store.MessageCursor
	msg Message
}

// joinNotices returns the join notices of group, oldest first: none unless
// group is #general. The caller holds e.mu.
func (e *Engine) joinNotices(group identity.GroupID) []joinNotice {
	if e.roster == nil || group != roster.GeneralGroupID(e.wsID()) {
		return nil
	}
	var out []joinNotice
	for _, u := range e.roster.Users() {
		if u.Admitted.Index == 0 { // genesis: the creator
			continue
		}
		id := joinNoticeID(u.ID)
		t := u.Joined.UTC()
		out = append(out, joinNotice{
			at:  store.MessageCursor{Time: t.UnixMilli(), ID: id},
			msg: Message{ID: id.String(), Kind: KindJoined, Author: hexID(u.ID).hex(), Time: t},
		})
	}
	sort.Slice(out, func(i, j int) bool { return older(out[i].at, out[j].at) })
	return out
}

// older orders positions as the index does: by time, then id.
func older(a, b store.MessageCursor) bool {
	if a.Time != b.Time {
		return a.Time < b.Time
	}
	return bytes.Compare(a.ID[:], b.ID[:]) < 0
}

// withJoinNotices merges notices into rows, a page of the index read newest
// first before cur (nil: from the newest), keeping the newest n of the
// union, newest first.
func withJoinNotices(rows []store.IndexedMessage, notices []joinNotice, cur *store.MessageCursor, n int) []pageItem {
	out := make([]pageItem, 0, min(n, len(rows)+len(notices)))
	j := len(notices) - 1
	for j >= 0 && cur != nil && !older(notices[j].at, *cur) {
		j--
	}
	i := 0
	for len(out) < n && (i < len(rows) || j >= 0) {
		if j >= 0 && (i == len(rows) || older(store.MessageCursor{Time: rows[i].Time, ID: rows[i].ID}, notices[j].at)) {
			out = append(out, pageItem{notice: &notices[j].msg})
			j--
			continue
		}
		out = append(out, pageItem{row: &rows[i]})
		i++
	}
	return out
}

// pageItem is one entry of a history page: an index row or a notice.
type pageItem struct {
	row    *store.IndexedMessage
	notice *Message
}

// noticeAt returns the position of the notice with id, if there is one.
func noticeAt(notices []joinNotice, id documents.MessageID) (store.MessageCursor, bool) {
	for _, n := range notices {
		if n.at.ID == id {
			return n.at, true
		}
	}
	return store.MessageCursor{}, false
}

// GeneralChannel returns #general's group id (hex): the channel whose
// history carries the join notices, so it changes when the roster does.
func (e *Engine) GeneralChannel() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return hexID(roster.GeneralGroupID(e.wsID())).hex()
}
