package app

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf16"

	"weald/app/notify"
	"weald/backend/engine"
)

// Desktop notifications (issue 17 item 10): a new message in a DM, or one
// that mentions you, shows an OS notification unless you are looking at its
// channel (the window focused and the channel open). Each workspace has a
// setting, kept in this device's store with its other preferences. A muted
// channel notifies only of mentions of you: muting turns down a channel's
// volume (#activity is muted from the start, and an agent there may name
// you), while a mention is addressed to you; "none" silences everything.
// A click on a notification opens its channel (OpenFromNotification).

// notifyWindow bounds how far back a message may have been sent, by its
// author's clock, before this device started, and still notify: history
// read on a first sync or after a long time offline shows as unread and
// mention badges, not as a burst of notifications.
const notifyWindow = time.Minute

// UseNotifier sets how a shows notifications (the desktop build: the
// freedesktop service over D-Bus); without one it shows none. A function,
// not a method: the App's methods are bound to the frontend.
func UseNotifier(a *App, n notify.Notifier) {
	a.workspaces.mu.Lock()
	defer a.workspaces.mu.Unlock()
	a.workspaces.notifier = n
}

// attention is what the person is looking at: the window focused or not,
// and the channel open in it.
type attention struct {
	focused   bool
	workspace string
	channel   string
}

// SetAttention tells Go whether the window has focus and which channel is
// open (ws and channel ” for none); a message of the open channel in a
// focused window notifies nobody.
func (w *Workspaces) SetAttention(ws, channel string, focused bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.attention = attention{focused: focused, workspace: strings.ToLower(ws), channel: strings.ToLower(channel)}
}

// SetNotifications sets a workspace's notification level: "all",
// "mentions" (DMs and mentions of you) or "none".
func (w *Workspaces) SetNotifications(ws, level string) error {
	switch NotifyLevel(level) {
	case NotifyAll, NotifyMentions, NotifyNone:
	default:
		return &Error{Code: "bad_request/notifications", Message: "Notifications are all, mentions (with direct messages) or none."}
	}
	r, err := w.run(ws)
	if err != nil {
		return err
	}
	if err := w.updatePrefs(r, func(p *prefs) { p.Notify = level }); err != nil {
		return err
	}
	w.emitWorkspaces()
	return nil
}

func notifyLevel(p prefs) NotifyLevel {
	if p.Notify == "" {
		return NotifyMentions
	}
	return NotifyLevel(p.Notify)
}

// notifyNew shows a notification for the new messages of a channel that
// call for one. It reads the channel's newest messages from the index and
// remembers, per channel, the newest it has considered; the text goes to
// the notifier only, never to the log.
func (w *Workspaces) notifyNew(r *wsRun, channel string) {
	w.mu.Lock()
	n, att := w.notifier, w.attention
	w.mu.Unlock()
	if n == nil {
		return
	}
	channel = strings.ToLower(channel)
	var ch *Channel
	for _, c := range w.channels(r) {
		if c.ID == channel {
			ch = &c
			break
		}
	}
	if ch == nil {
		return
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	msgs, err := r.eng.Messages(ctx, channel, 20)
	if err != nil {
		return
	}
	user := r.eng.Status().User
	r.mu.Lock()
	if r.notified == nil {
		r.notified = map[string]int64{}
	}
	looking := att.focused && att.workspace == r.id && att.channel == channel
	upTo := max(r.prefs.LastRead[channel], r.notified[channel], r.started.Add(-notifyWindow).UnixMilli())
	news, newest := toNotify(msgs, user, upTo, notifyLevel(r.prefs), *ch, looking)
	r.notified[channel] = max(r.notified[channel], newest)
	r.mu.Unlock()
	if len(news) == 0 {
		return
	}
	shown := make([]Message, len(news))
	for i, m := range news {
		shown[i] = w.toMessage(r, user, channel, m)
	}
	nctx, ncancel := context.WithTimeout(r.ctx, 10*time.Second)
	defer ncancel()
	note := notification(*ch, shown)
	note.Workspace = r.id
	if err := n.Notify(nctx, note); err != nil {
		// The error only: the message text stays out of the log.
		w.app.logger.Printf("notification for a message in %s: %v", r.id[:min(8, len(r.id))], err)
	}
}

// toNotify picks, from a channel's newest messages, those that notify:
// written by someone else after upTo (Unix ms, by the author's clock), and
// at this level — every one for "all", DMs and mentions of user for
// "mentions", none for "none"; only mentions of user in a muted channel —
// unless the person is looking at the channel. newest is the latest time considered, shown or not
// (a message seen in the open channel never notifies later).
func toNotify(msgs []engine.Message, user string, upTo int64, level NotifyLevel, ch Channel, looking bool) (news []engine.Message, newest int64) {
	for _, m := range msgs {
		at := m.Time.UnixMilli()
		if m.Author == user || m.State != "" || m.Kind != "" || at <= upTo { // not a join notice
			continue
		}
		newest = max(newest, at)
		switch {
		case looking || level == NotifyNone:
		case m.Mentions(user):
			news = append(news, m)
		case ch.Muted:
		case level == NotifyAll || ch.Kind == "dm":
			news = append(news, m)
		}
	}
	return news, newest
}

// notification says who wrote, where, and the newest text (mentions under
// current names), or how many messages came at once.
func notification(ch Channel, news []Message) notify.Notification {
	m := news[len(news)-1]
	where := "#" + ch.Name
	title := fmt.Sprintf("%s in %s", m.Author, where)
	switch {
	case ch.Kind == "dm":
		title = m.Author
	case m.MentionsMe:
		title = fmt.Sprintf("%s mentioned you in %s", m.Author, where)
	}
	body := plainText(m)
	if len(news) > 1 {
		title = fmt.Sprintf("%d new messages in %s", len(news), where)
		if ch.Kind == "dm" {
			title = fmt.Sprintf("%d new messages from %s", len(news), ch.Name)
		}
		body = m.Author + ": " + body
	}
	if r := []rune(body); len(r) > 200 {
		body = string(r[:199]) + "…"
	}
	return notify.Notification{Title: title, Body: body, Channel: ch.ID}
}

// OpenFromNotification tells the frontend to show the channel of a
// notification the person clicked (EventOpenChannel), or for a security
// alert the workspace's Security view; the host raises the window. A workspace or channel no longer on this device opens nothing.
// A function, not a method: the App's methods are bound to the frontend.
func OpenFromNotification(a *App, n notify.Notification) {
	w := a.workspaces
	r, err := w.run(n.Workspace)
	if err != nil {
		return
	}
	if n.Kind == notify.KindSecurity {
		a.emit(w.ctx, EventOpenChannel, OpenChannel{Workspace: r.id, View: "security"})
		return
	}
	for _, c := range w.channels(r) {
		if c.ID == strings.ToLower(n.Channel) {
			a.emit(w.ctx, EventOpenChannel, OpenChannel{Workspace: r.id, Channel: c.ID})
			return
		}
	}
}

// plainText is a message's text with each mention shown under the
// person's current name.
func plainText(m Message) string {
	if len(m.Mentions) == 0 {
		return m.Text
	}
	u := utf16.Encode([]rune(m.Text))
	var b strings.Builder
	at := 0
	for _, x := range m.Mentions {
		if x.Start < at || x.End > len(u) {
			continue
		}
		b.WriteString(string(utf16.Decode(u[at:x.Start])))
		b.WriteString("@" + x.Name)
		at = x.End
	}
	b.WriteString(string(utf16.Decode(u[at:])))
	return b.String()
}
