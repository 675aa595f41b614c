package engine

import (
	"context"
	"encoding/hex"
	"strings"
	"time"

	"weald/backend/identity"
	"weald/backend/roster"
)

// Channel is one group as the sidebar and `weald channels` show it.
type Channel struct {
	Name      string `json:"name"`
	Group     string `json:"group"`     // group id (hex)
	Kind      string `json:"kind"`      // ws, chan, dm
	Admission string `json:"admission"` // everyone, parent, explicit
	History   string `json:"history"`   // open, closed
	Default   bool   `json:"default"`
	Muted     bool   `json:"muted"`
	Member    bool   `json:"member"`
	Position  uint32 `json:"position"`
	Policy    string `json:"policy_hash"`    // hex
	Peer      string `json:"peer,omitempty"` // a DM's other person (user id, hex)
}

// Channels lists the workspace's groups in sidebar order (the root first).
func (e *Engine) Channels() []Channel {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := []Channel{}
	for _, g := range e.roster.Groups() {
		if g.Deleted {
			continue
		}
		h := g.Policy.Hash()
		id := hexID(g.Policy.Group).hex()
		muted, set := e.meta.Muted[id]
		if !set && g.Policy.Group == roster.ActivityGroupID(e.wsID()) {
			muted = true // #activity is muted by default (spec/channels.md "Default channels")
		}
		c := Channel{Name: g.Name, Group: id, Kind: g.Policy.Kind.String(),
			Admission: g.Policy.Admission.String(), History: g.Policy.History.String(), Default: g.Policy.Default,
			Muted: muted, Member: e.member(g.Policy.Group), Position: g.Position, Policy: hex.EncodeToString(h[:])}
		if g.Policy.Kind == roster.KindDM {
			me := identity.UserID(e.meta.User)
			if g.DMUsers[0] != me && g.DMUsers[1] != me {
				continue // another pair's DM: not this person's to list
			}
			c.Peer = hexID(e.dmPeer(g)).hex()
		}
		out = append(out, c)
	}
	return out
}

// resolveChannel finds a group by name ("general", "#general") or hex id.
func (e *Engine) resolveChannel(s string) (roster.GroupInfo, error) {
	if strings.HasPrefix(s, "@") {
		return e.resolveDM(s)
	}
	s = shortName(s)
	if len(s) == 64 {
		var id [32]byte
		if parseHexID(s, &id) == nil {
			if g, ok := e.roster.Group(identity.GroupID(id)); ok && !g.Deleted {
				return g, nil
			}
		}
	}
	for _, g := range e.roster.Groups() {
		if !g.Deleted && strings.EqualFold(g.Name, s) && g.Policy.Kind != roster.KindWorkspace {
			return g, nil
		}
	}
	return roster.GroupInfo{}, ErrNoChannel
}

// Member is one member of a channel or the workspace.
type Member struct {
	User    string `json:"user"`
	Name    string `json:"name"` // the user's display name, or a short id
	Device  string `json:"device"`
	Role    string `json:"role"`
	Revoked bool   `json:"revoked,omitempty"`
	You     bool   `json:"you,omitempty"`
	// Probation: admitted by recovery, waiting for an admin's approval.
	Probation bool `json:"probation,omitempty"`
	// Agent: this member is an agent (User and Device are then its agent
	// id, Name its name, Role "agent"), issued by a device of Owner.
	Agent     bool   `json:"agent,omitempty"`
	Owner     string `json:"owner,omitempty"`
	OwnerName string `json:"owner_name,omitempty"`
}

// Members lists the devices and agents with a leaf in a channel (channel
// != ""), or the roster's devices and agents.
func (e *Engine) Members(ctx context.Context, channel string) ([]Member, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var inGroup map[identity.DeviceID]bool
	if channel != "" {
		gi, err := e.resolveChannel(channel)
		if err != nil {
			return nil, err
		}
		g := e.groups[gi.Policy.Group]
		if g == nil || g.mls == nil {
			return nil, ErrNotMember
		}
		inGroup = map[identity.DeviceID]bool{}
		for _, m := range g.mls.Members() {
			if len(m.Credential.Identity) == 32 {
				inGroup[identity.DeviceID(m.Credential.Identity)] = true
			}
		}
	}
	var out []Member
	for _, u := range e.roster.Users() {
		for _, d := range u.Devices {
			if inGroup != nil && !inGroup[d] {
				continue
			}
			di, _ := e.roster.Device(d)
			out = append(out, Member{User: hexID(u.ID).hex(), Name: e.userName(u.ID), Device: hexID(d).hex(), Role: u.Role.String(),
				Revoked: !e.roster.DeviceLive(d), Probation: di.Probation && di.RevokedAt == nil, You: d == e.devID})
		}
	}
	for _, a := range e.roster.Agents() {
		if inGroup != nil && !inGroup[identity.DeviceID(a.ID)] {
			continue
		}
		v := e.agentView(a)
		out = append(out, Member{User: v.ID, Name: v.Name, Device: v.ID, Role: "agent", Revoked: v.State != "live",
			You: a.ID == e.agentID(), Agent: true, Owner: v.Owner, OwnerName: v.OwnerName})
	}
	return out, nil
}

// RenameChannel renames a channel (default channels included) by a roster
// group-rename operation.
func (e *Engine) RenameChannel(ctx context.Context, channel, name string) error {
	return e.editChannel(ctx, channel, func(id identity.GroupID) roster.Body { return &roster.RenameGroup{Group: id, Name: name} })
}

// ReorderChannel sets a channel's sidebar position by a roster
// group-reorder operation.
func (e *Engine) ReorderChannel(ctx context.Context, channel string, position uint32) error {
	return e.editChannel(ctx, channel, func(id identity.GroupID) roster.Body {
		return &roster.ReorderGroup{Group: id, Position: position}
	})
}

func (e *Engine) editChannel(ctx context.Context, channel string, body func(identity.GroupID) roster.Body) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return err
	}
	gi, err := e.resolveChannel(channel)
	if err != nil {
		return err
	}
	if err := e.appendRoster(ctx, func() (roster.Body, error) { return body(gi.Policy.Group), nil }); err != nil {
		return err
	}
	e.emit(Event{Kind: EventChannels})
	return nil
}

// MarkRead moves a channel's read marker to upTo (the time of the newest
// message the user has seen); it never moves backwards. The marker and the
// unread counts after it are kept in the store (unread.go).
func (e *Engine) MarkRead(ctx context.Context, channel string, upTo time.Time) error {
	e.mu.Lock()
	gi, err := e.resolveChannel(channel)
	e.mu.Unlock()
	if err != nil {
		return err
	}
	return e.markRead(ctx, gi.Policy.Group, upTo.UnixMilli())
}

// Unread counts a channel's messages by others newer than its read marker.
func (e *Engine) Unread(ctx context.Context, channel string) (int, error) {
	e.mu.Lock()
	gi, err := e.resolveChannel(channel)
	e.mu.Unlock()
	if err != nil {
		return 0, err
	}
	cs, err := e.UnreadCounts(ctx)
	return cs[hexID(gi.Policy.Group).hex()].Unread, err
}
