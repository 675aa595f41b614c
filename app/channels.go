package app

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"weald/backend/engine"
	"weald/backend/identity"
	"weald/backend/roster"
)

// Policy is the part of a GroupPolicy the channel header shows.
type Policy struct {
	Admission Admission `json:"admission" ts_type:"'everyone' | 'parent' | 'explicit'"`
	History   History   `json:"history" ts_type:"'open' | 'closed'"`
	Default   bool      `json:"default"`
	Hash      string    `json:"hash"`
}

// Channel is one channel in the sidebar.
type Channel struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Policy Policy `json:"policy"`
	Muted  bool   `json:"muted"`
	Unread int    `json:"unread"`
	// Mentions counts the unread messages that mention you.
	Mentions int  `json:"mentions,omitempty"`
	Joined   bool `json:"joined"`
	// DefaultName is the spec's name of a default channel ("general" or
	// "activity"), whatever it is called locally; empty for the others.
	DefaultName string `json:"defaultName"`
	// Kind is "chan", or "dm" for a direct message, whose Peer is the
	// other person's user id and whose Name is that person's.
	Kind ChannelKind `json:"kind" ts_type:"'chan' | 'dm'"`
	Peer string      `json:"peer"`
}

// Message is one chat message.
type Message struct {
	ID      string `json:"id"`
	Channel string `json:"channel"`
	Author  string `json:"author"`
	Mine    bool   `json:"mine"`
	Text    string `json:"text"`
	SentAt  int64  `json:"sentAt"`
	// State is "sent", "pending" (waiting in the outbox for the
	// connection) or "failed" (refused; Error says why).
	State MessageState `json:"state" ts_type:"'sent' | 'pending' | 'failed'"`
	Error *Error       `json:"error"`
	// Kind is "" for a chat message and "joined" for a line of #general
	// saying that Author joined the workspace (drawn from the roster).
	Kind MessageKind `json:"kind,omitempty" ts_type:"'' | 'joined'"`
	// Edited: its author changed the text after sending it.
	Edited bool `json:"edited,omitempty"`
	// Change is "edit" or "delete" when such a change of yours to this
	// message waits in the outbox (State "pending" or "failed"; retry and
	// discard take the message's id).
	Change MessageChange `json:"change,omitempty" ts_type:"'' | 'edit' | 'delete'"`
	// Mentions mark "@name" spans of Text that refer to people; MentionsMe
	// says one of them is you. A mention highlights and counts, nothing more.
	Mentions   []MentionRef `json:"mentions,omitempty"`
	MentionsMe bool         `json:"mentionsMe,omitempty"`
}

// InviteScope is a group an invite may name.
type InviteScope struct {
	Group   string  `json:"group"`
	Name    string  `json:"name"`
	Root    bool    `json:"root"`
	History History `json:"history" ts_type:"'open' | 'closed'"`
}

// Invite is a created invite link.
type Invite struct {
	Link      string `json:"link"`
	ExpiresAt int64  `json:"expiresAt"`
	MaxUses   int    `json:"maxUses"`
	Role      Role   `json:"role" ts_type:"'member' | 'admin'"`
}

// InviteRecord is one invite of the workspace as the invite list shows it
// (the link itself is shown once, at creation, and never again).
type InviteRecord struct {
	ID        string      `json:"id"`
	Role      Role        `json:"role" ts_type:"'member' | 'admin'"`
	Uses      int         `json:"uses"`
	MaxUses   int         `json:"maxUses"`
	CreatedAt int64       `json:"createdAt"`
	ExpiresAt int64       `json:"expiresAt"`
	CreatedBy string      `json:"createdBy"`
	Mine      bool        `json:"mine"`
	Scopes    []string    `json:"scopes"`
	JoinedBy  []string    `json:"joinedBy"`
	State     InviteState `json:"state" ts_type:"'live' | 'used' | 'expired' | 'revoked'"`
}

// WorkspaceMember is one person of the workspace's roster, with when
// they joined.
type WorkspaceMember struct {
	User    string `json:"user"`
	Name    string `json:"name"`
	Role    Role   `json:"role" ts_type:"'member' | 'admin'"`
	You     bool   `json:"you"`
	Creator bool   `json:"creator"`
	Revoked bool   `json:"revoked"`
	// JoinedAt is when the person entered the roster (Unix ms): "Dana
	// joined" in #general is drawn from it.
	JoinedAt int64 `json:"joinedAt"`
}

// Event payloads.
type (
	ChannelsChanged struct {
		Workspace string    `json:"workspace"`
		Channels  []Channel `json:"channels"`
	}
	MessagesChanged struct {
		Workspace string `json:"workspace"`
		Channel   string `json:"channel"`
	}
	Progress struct {
		ID       string `json:"id"`
		Label    string `json:"label"`
		Done     int    `json:"done"`
		Total    int    `json:"total"`
		Finished bool   `json:"finished"`
	}
	// Alert is a new alert: Message is its plain sentence
	// (SecurityAlert.Summary), ID its id in SecurityAlerts ("" when it
	// could not be read back), Tone how to show it.
	Alert struct {
		Workspace string    `json:"workspace"`
		ID        string    `json:"id"`
		Code      string    `json:"code"`
		Tone      AlertTone `json:"tone" ts_type:"'notice' | 'alert'"`
		Message   string    `json:"message"`
	}
)

// MaxMessageBytes bounds one message typed in the composer.
const MaxMessageBytes = 16 << 10

const callTimeout = 30 * time.Second

func (w *Workspaces) callCtx() (context.Context, context.CancelFunc) {
	w.mu.Lock()
	base := w.ctx
	w.mu.Unlock()
	if base == nil {
		base = context.Background()
	}
	return context.WithTimeout(base, callTimeout)
}

// channels lists the workspace's channels (not the root, which is not a chat
// surface, nor DMs) in sidebar order with local names and unread counts.
func (w *Workspaces) channels(r *wsRun) []Channel {
	all := r.eng.Channels()
	st := r.eng.Status()
	r.mu.Lock()
	p := r.prefs
	names := make(map[string]string, len(p.Names))
	for k, v := range p.Names {
		names[k] = v
	}
	order := append([]string(nil), p.Order...)
	r.mu.Unlock()
	ctx, cancel := w.callCtx()
	defer cancel()
	// One row per channel from the engine's store, not its messages.
	counts, _ := r.eng.UnreadCounts(ctx)
	defaultNames := defaultChannelNames(st.Workspace)
	out := []Channel{}
	for _, c := range all {
		// Not the root (not a chat surface), and not a private channel
		// this device is not in (its members add people). A DM of this
		// person's is listed before this device is in it (it waits to be
		// added by the device that started it).
		if (c.Kind != "chan" && c.Kind != "dm") || (c.Kind == "chan" && c.Admission == "explicit" && !c.Member) {
			continue
		}
		ch := Channel{ID: c.Group, Name: c.Name, Muted: c.Muted, Joined: c.Member, Kind: ChannelKind(c.Kind), Peer: c.Peer,
			Policy: Policy{Admission: Admission(c.Admission), History: History(c.History), Default: c.Default, Hash: c.Policy}}
		if c.Kind == "dm" {
			ch.Name = w.personName(r, st.User, c.Peer)
		}
		ch.DefaultName = defaultNames[c.Group]
		if n, ok := names[c.Group]; ok {
			ch.Name = n
		}
		if c.Member {
			n := counts[c.Group]
			ch.Unread, ch.Mentions = n.Unread, n.Mentions
		}
		out = append(out, ch)
	}
	rank := map[string]int{}
	for i, id := range order {
		rank[id] = i + 1
	}
	// Defaults first; within each part the local order, then the engine's.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Policy.Default != out[j].Policy.Default {
			return out[i].Policy.Default
		}
		ri, rj := rank[out[i].ID], rank[out[j].ID]
		if ri == 0 || rj == 0 {
			return ri != 0 && rj == 0
		}
		return ri < rj
	})
	return out
}

// defaultChannelNames maps the group ids (hex) of a workspace's default
// channels to their names in spec/channels.md "Default channels".
func defaultChannelNames(ws string) map[string]string {
	var id identity.WorkspaceID
	b, err := hex.DecodeString(ws)
	if err != nil || len(b) != len(id) {
		return nil
	}
	copy(id[:], b)
	g, a := roster.GeneralGroupID(id), roster.ActivityGroupID(id)
	return map[string]string{hex.EncodeToString(g[:]): "general", hex.EncodeToString(a[:]): "activity"}
}

// result converts a (T, *Error) into (T, error) without turning a nil
// *Error into a non-nil error.
func result[T any](v T, err *Error) (T, error) {
	if err != nil {
		return v, err
	}
	return v, nil
}

func (w *Workspaces) channel(r *wsRun, id string) (Channel, *Error) {
	for _, c := range w.channels(r) {
		if c.ID == strings.ToLower(id) {
			return c, nil
		}
	}
	return Channel{}, &Error{Code: "channel/unknown", Message: "There is no such channel in this workspace."}
}

// Channels lists the channels of workspace ws.
func (w *Workspaces) Channels(ws string) ([]Channel, error) {
	r, err := w.run(ws)
	if err != nil {
		return nil, err
	}
	return w.channels(r), nil
}

// CreateChannel creates a channel: admission "parent" (anyone in the
// workspace can join; history open) or "explicit" (private; members add
// people; history closed).
func (w *Workspaces) CreateChannel(ws, name, admission string) (Channel, error) {
	r, err := w.run(ws)
	if err != nil {
		return Channel{}, err
	}
	name = strings.TrimPrefix(strings.TrimSpace(name), "#")
	if name, err = checkName("a name for the channel", name, 80); err != nil {
		return Channel{}, err
	}
	var a roster.Admission
	switch admission {
	case "parent":
		a = roster.AdmissionParent
	case "explicit":
		a = roster.AdmissionExplicit
	default:
		return Channel{}, &Error{Code: "bad_request/admission", Message: `Choose who can join: "parent" or "explicit".`}
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	c, cerr := r.eng.CreateChannel(ctx, name, a)
	if cerr != nil {
		return Channel{}, toError(cerr)
	}
	ch, err := w.channel(r, c.Group)
	if err != nil {
		return Channel{}, err
	}
	go w.emitChannels(r)
	return ch, nil
}

// RenameChannelLocally gives a channel a name on this device only (defaults
// included; spec/channels.md "Default channels": they can be renamed). It
// writes the device's preferences, not the roster: the roster's group-rename,
// which renames a channel for everyone, is engine.RenameChannel.
func (w *Workspaces) RenameChannelLocally(ws, channel, name string) (Channel, error) {
	r, err := w.run(ws)
	if err != nil {
		return Channel{}, err
	}
	name = strings.TrimPrefix(strings.TrimSpace(name), "#")
	if name, err = checkName("a name for the channel", name, 80); err != nil {
		return Channel{}, err
	}
	if _, err := w.channel(r, channel); err != nil {
		return Channel{}, err
	}
	if err := w.updatePrefs(r, func(p *prefs) { p.Names[strings.ToLower(channel)] = name }); err != nil {
		return Channel{}, err
	}
	go w.emitChannels(r)
	return result(w.channel(r, channel))
}

// SetMuted mutes or unmutes a channel.
func (w *Workspaces) SetMuted(ws, channel string, muted bool) (Channel, error) {
	r, err := w.run(ws)
	if err != nil {
		return Channel{}, err
	}
	if _, err := w.channel(r, channel); err != nil {
		return Channel{}, err
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	if err := r.eng.SetMuted(ctx, channel, muted); err != nil {
		return Channel{}, toError(err)
	}
	return result(w.channel(r, channel))
}

// MoveChannelLocally moves a channel to index to within its part of this
// device's sidebar (the defaults, or the other channels) and returns the new
// order. Like RenameChannelLocally it is a preference of this device, not the
// roster's group-reorder (engine.ReorderChannel).
func (w *Workspaces) MoveChannelLocally(ws, channel string, to int) ([]Channel, error) {
	r, err := w.run(ws)
	if err != nil {
		return nil, err
	}
	all := w.channels(r)
	var defaults, others []Channel
	for _, c := range all {
		if c.Policy.Default {
			defaults = append(defaults, c)
		} else {
			others = append(others, c)
		}
	}
	id := strings.ToLower(channel)
	part := &others
	for _, c := range defaults {
		if c.ID == id {
			part = &defaults
		}
	}
	from := -1
	for i, c := range *part {
		if c.ID == id {
			from = i
		}
	}
	if from < 0 {
		return nil, &Error{Code: "channel/unknown", Message: "There is no such channel in this workspace."}
	}
	if to < 0 || to >= len(*part) {
		return nil, &Error{Code: "bad_request/position", Message: fmt.Sprintf("A channel can move to a place from 0 to %d.", len(*part)-1)}
	}
	c := (*part)[from]
	rest := append(append([]Channel(nil), (*part)[:from]...), (*part)[from+1:]...)
	*part = append(append(append([]Channel(nil), rest[:to]...), c), rest[to:]...)
	order := []string{}
	for _, c := range append(defaults, others...) {
		order = append(order, c.ID)
	}
	if err := w.updatePrefs(r, func(p *prefs) { p.Order = order }); err != nil {
		return nil, err
	}
	go w.emitChannels(r)
	return w.channels(r), nil
}

func (w *Workspaces) updatePrefs(r *wsRun, f func(*prefs)) *Error {
	r.mu.Lock()
	defer r.mu.Unlock()
	next := r.prefs
	next.Names = map[string]string{}
	for k, v := range r.prefs.Names {
		next.Names[k] = v
	}
	next.LastRead = map[string]int64{}
	for k, v := range r.prefs.LastRead {
		next.LastRead[k] = v
	}
	next.Order = append([]string(nil), r.prefs.Order...)
	next.Acked = maps.Clone(r.prefs.Acked)
	f(&next)
	if err := w.app.savePrefs(r.id, next); err != nil {
		return err
	}
	r.prefs = next
	return nil
}

func (w *Workspaces) toMessage(r *wsRun, user, channel string, m engine.Message) Message {
	r.mu.Lock()
	you := r.prefs.You
	r.mu.Unlock()
	out := Message{ID: m.ID, Channel: channel, Text: m.Text, SentAt: m.Time.UnixMilli(), State: MessageSent, Mine: m.Author == user,
		Kind: MessageKind(m.Kind), Edited: m.Edited, Change: MessageChange(m.Change)}
	if m.State != "" {
		// In this device's outbox: "pending" (goes out by itself once
		// connected) or "failed" (refused; Error says why).
		out.State = MessageState(m.State)
		if m.Error != "" {
			out.Error = toError(errors.New(m.Error))
		}
	}
	out.Mentions = w.mentionRefs(r, user, m)
	out.MentionsMe = !out.Mine && m.Mentions(user)
	out.Author = personNameOf(you, user, m.Author)
	if m.AuthorName != "" && m.AuthorName != engineUnnamed(m.Author) {
		out.Author = m.AuthorName // the roster's name now (yours too, after a rename)
	}
	return out
}

// personName is how the app names a person (user id, hex) to this device's
// user (me): "You" (or your display name) for yourself; the others by
// their display name in the roster (engine UserName).
func (w *Workspaces) personName(r *wsRun, me, user string) string {
	r.mu.Lock()
	you := r.prefs.You
	r.mu.Unlock()
	var id identity.UserID
	if b, err := hex.DecodeString(user); user != me && err == nil && len(b) == len(id) {
		copy(id[:], b)
		if n := r.eng.UserName(id); n != engineUnnamed(user) {
			return n
		}
	}
	return personNameOf(you, me, user)
}

// engineUnnamed is the engine's name for a person without a display name
// (engine UserName), which the app says as "Member" and the same digits.
func engineUnnamed(user string) string { return "user " + user[:min(8, len(user))] }

func personNameOf(you, me, user string) string {
	switch {
	case user == me && you != "":
		return you
	case user == me:
		return "You"
	}
	return "Member " + user[:min(8, len(user))]
}

// Messages returns a channel's history, oldest first.
func (w *Workspaces) Messages(ws, channel string) ([]Message, error) {
	r, err := w.run(ws)
	if err != nil {
		return nil, err
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	msgs, merr := r.eng.Messages(ctx, channel, 0)
	if merr != nil {
		return nil, toError(merr)
	}
	queued, qerr := r.eng.Outbox(channel)
	if qerr != nil {
		return nil, toError(qerr)
	}
	user := r.eng.Status().User
	out := make([]Message, 0, len(msgs)+len(queued))
	for _, m := range append(msgs, queued...) {
		out = append(out, w.toMessage(r, user, strings.ToLower(channel), m))
	}
	return out, nil
}

// Send puts text in the channel's outbox and returns it as "pending" at
// once; the engine sends it while connected, or as soon as it is again
// (messages:changed tells when it went out or was refused).
func (w *Workspaces) Send(ws, channel, text string) (Message, error) {
	return w.SendMentioning(ws, channel, text, nil)
}

// SendMentioning is Send with mentions of people (spans of text in UTF-16
// code units; their names are ignored) — references to user ids that the
// receivers highlight.
func (w *Workspaces) SendMentioning(ws, channel, text string, mentions []MentionRef) (Message, error) {
	r, err := w.run(ws)
	if err != nil {
		return Message{}, err
	}
	raw := text
	text, terr := checkText(text)
	if terr != nil {
		return Message{}, terr
	}
	ms, merr := toEngineMentions(raw, text, mentions)
	if merr != nil {
		return Message{}, merr
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	m, serr := r.eng.Queue(ctx, channel, text, ms...)
	if serr != nil {
		return Message{}, toError(serr)
	}
	return w.toMessage(r, r.eng.Status().User, strings.ToLower(channel), m), nil
}

// RetrySend makes a failed message of the outbox pending again.
func (w *Workspaces) RetrySend(ws, id string) error {
	return w.outboxCall(ws, func(ctx context.Context, eng *engine.Engine) error { return eng.RetryOutbox(ctx, id) })
}

// DiscardSend drops a message from the outbox.
func (w *Workspaces) DiscardSend(ws, id string) error {
	return w.outboxCall(ws, func(ctx context.Context, eng *engine.Engine) error { return eng.DiscardOutbox(ctx, id) })
}

func (w *Workspaces) outboxCall(ws string, f func(context.Context, *engine.Engine) error) error {
	r, err := w.run(ws)
	if err != nil {
		return err
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	if err := f(ctx, r.eng); err != nil {
		return toError(err)
	}
	return nil
}

// MarkRead records that every message of a channel so far has been read.
func (w *Workspaces) MarkRead(ws, channel string) error {
	r, err := w.run(ws)
	if err != nil {
		return err
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	newest, merr := r.eng.MarkAllRead(ctx, channel)
	if merr != nil {
		return toError(merr)
	}
	if err := w.updatePrefs(r, func(p *prefs) { p.LastRead[strings.ToLower(channel)] = newest }); err != nil {
		return err
	}
	go w.emitChannels(r)
	return nil
}

// InviteScopes lists what an invite can open: the workspace root (always)
// and the channels whose history is open; closed groups are never offered.
func (w *Workspaces) InviteScopes(ws string) ([]InviteScope, error) {
	r, err := w.run(ws)
	if err != nil {
		return nil, err
	}
	out := []InviteScope{}
	for _, c := range r.eng.Channels() {
		if c.Kind == "ws" {
			out = append([]InviteScope{{Group: c.Group, Name: r.eng.Status().Name, Root: true, History: History(c.History)}}, out...)
		}
	}
	for _, c := range w.channels(r) {
		if c.Policy.History == "open" {
			out = append(out, InviteScope{Group: c.ID, Name: c.Name, History: c.Policy.History})
		}
	}
	return out, nil
}

// CreateInvite makes an invite link for the root plus the open channels in
// scopes, valid for hours (1 to 720), for uses people (1 to 1000) with role
// (member or admin).
func (w *Workspaces) CreateInvite(ws string, scopes []string, hours, uses int, role string) (Invite, error) {
	r, err := w.run(ws)
	if err != nil {
		return Invite{}, err
	}
	if hours < 1 || hours > 720 {
		return Invite{}, &Error{Code: "bad_request/expiry", Message: "An invite lasts from 1 hour to 30 days."}
	}
	if uses < 1 || uses > engine.MaxInviteUses {
		return Invite{}, &Error{Code: "invite/bad_uses", Message: "An invite link can be used from 1 to 1000 times."}
	}
	rr := roster.RoleMember
	switch role {
	case "", "member":
	case "admin":
		rr = roster.RoleAdmin
	default:
		return Invite{}, &Error{Code: "invite/bad_role", Message: "An invite makes its joiners members or admins."}
	}
	offered, _ := w.InviteScopes(ws)
	ok := map[string]bool{}
	root := ""
	for _, s := range offered {
		ok[s.Group] = true
		if s.Root {
			root = s.Group
		}
	}
	var names []string
	for _, s := range scopes {
		s = strings.ToLower(s)
		if s == root {
			continue
		}
		if !ok[s] {
			return Invite{}, &Error{Code: "invite/bad_scope", Message: "An invite can only open the workspace and channels whose history is open."}
		}
		names = append(names, s)
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	link, ierr := r.eng.CreateInviteWith(ctx, engine.InviteOptions{Scopes: names, Role: rr, Expires: time.Duration(hours) * time.Hour, Uses: uses})
	if ierr != nil {
		return Invite{}, toError(ierr)
	}
	go w.emitWorkspaces()
	return Invite{Link: link, ExpiresAt: time.Now().Add(time.Duration(hours) * time.Hour).UnixMilli(), MaxUses: uses, Role: Role(rr.String())}, nil
}

// Invites lists the workspace's invites, newest first.
func (w *Workspaces) Invites(ws string) ([]InviteRecord, error) {
	r, err := w.run(ws)
	if err != nil {
		return nil, err
	}
	out := []InviteRecord{}
	for _, in := range r.eng.Invites() {
		out = append(out, InviteRecord{ID: in.ID, Role: Role(in.Role), Uses: in.Uses, MaxUses: in.MaxUses, CreatedAt: in.Created.UnixMilli(),
			ExpiresAt: in.Expires.UnixMilli(), CreatedBy: in.CreatedBy, Mine: in.Mine, Scopes: in.Scopes, JoinedBy: in.JoinedBy, State: InviteState(in.State)})
	}
	return out, nil
}

// RevokeInvite revokes an invite by id: a roster operation, then the access
// set without its grant, so the relay refuses the link from then on.
func (w *Workspaces) RevokeInvite(ws, id string) error {
	r, err := w.run(ws)
	if err != nil {
		return err
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	if err := r.eng.RevokeInvite(ctx, id); err != nil {
		return toError(err)
	}
	return nil
}

// WorkspaceMembers lists the roster's people (removed ones marked), in
// order of joining.
func (w *Workspaces) WorkspaceMembers(ws string) ([]WorkspaceMember, error) {
	r, err := w.run(ws)
	if err != nil {
		return nil, err
	}
	out := []WorkspaceMember{}
	for _, p := range r.eng.People() {
		out = append(out, WorkspaceMember{User: p.User, Name: p.Name, Role: Role(p.Role), You: p.You, Creator: p.Creator, Revoked: p.Revoked,
			JoinedAt: p.Joined.UnixMilli()})
	}
	return out, nil
}

// SetName changes your display name in a workspace (a roster operation the
// other members see on their next sync).
func (w *Workspaces) SetName(ws, name string) error {
	r, err := w.run(ws)
	if err != nil {
		return err
	}
	name, nerr := checkName("your name", name, 80)
	if nerr != nil {
		return nerr
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	if err := r.eng.SetDisplayName(ctx, name); err != nil {
		return toError(err)
	}
	w.emitWorkspaces()
	return nil
}

// checkText trims a message and refuses an empty or oversized one.
func checkText(text string) (string, *Error) {
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return "", &Error{Code: "bad_request/empty", Message: "Type a message first."}
	case len(text) > MaxMessageBytes || !utf8.ValidString(text):
		return "", &Error{Code: "limit/message_size", Message: fmt.Sprintf("This message is longer than %d KiB; shorten it or split it.", MaxMessageBytes>>10)}
	}
	return text, nil
}
