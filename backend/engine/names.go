package engine

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/roster"
)

// Display names (issue 17 item 3; docs/protocol/roster.md set-name): each
// user's name lives in the roster, set by the user's device at create and at
// join and changeable later. Names need not be unique; FindUser refuses an
// ambiguous one.

// Errors of names.
var (
	ErrUnknownUser   = errcode.New("user/unknown", "nobody in this workspace has that name or user id")
	ErrAmbiguousUser = errcode.New("user/ambiguous", "more than one person has that name or id prefix; give more of their user id")
)

// Person is one user of the workspace as member lists show it.
type Person struct {
	User    string `json:"user"` // user id (hex)
	Name    string `json:"name"` // display name, or a short id until one is set
	Named   bool   `json:"named"`
	Role    string `json:"role"`
	Revoked bool   `json:"revoked,omitempty"`
	You     bool   `json:"you,omitempty"`
	// Joined is when the user entered the roster (genesis or redemption):
	// "Dana joined" in #general is drawn from it, not from a chat message.
	Joined time.Time `json:"joined"`
	// Creator: the user entered by genesis (created the workspace).
	Creator bool `json:"creator,omitempty"`
}

// CheckName refuses a display name the roster would refuse (roster/bad_name).
func CheckName(name string) error {
	return roster.CheckName(name)
}

// SetDisplayName sets this user's display name by a roster set-name
// operation (nothing is written when the name is already that).
func (e *Engine) SetDisplayName(ctx context.Context, name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.meta.DisplayName = name
	if err := e.persistMeta(ctx); err != nil {
		return err
	}
	if err := e.connect(ctx); err != nil {
		return err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return err
	}
	if err := e.ensureName(ctx); err != nil {
		return err
	}
	e.emit(Event{Kind: EventRoster})
	return nil
}

// ensureName writes the wanted display name into the roster once this
// user is in it and the roster says otherwise (the caller holds e.mu, is
// connected and synced).
func (e *Engine) ensureName(ctx context.Context) error {
	want := e.meta.DisplayName
	if want == "" {
		return nil
	}
	return e.appendRoster(ctx, func() (roster.Body, error) {
		u, ok := e.roster.User(identity.UserID(e.meta.User))
		if !ok || u.Name == want || u.RevokedAt != nil {
			return nil, nil
		}
		return &roster.SetName{User: u.ID, Name: want}, nil
	})
}

// DisplayName returns this user's display name ("" until set).
func (e *Engine) DisplayName() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if u, ok := e.roster.User(identity.UserID(e.meta.User)); ok && u.Name != "" {
		return u.Name
	}
	return e.meta.DisplayName
}

// UserName returns a user's display name, or "user " and the first 8 hex
// digits of its id when it has none (or is not in the roster).
func (e *Engine) UserName(user identity.UserID) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.userName(user)
}

func (e *Engine) userName(user identity.UserID) string {
	if e.roster != nil { // nil while opening: the roster is not loaded yet
		if u, ok := e.roster.User(user); ok && u.Name != "" {
			return u.Name
		}
		if a, ok := e.roster.Agent(identity.AgentID(user)); ok {
			return e.agentLabel(a)
		}
	}
	e.nameless.Add(1)
	return "user " + hex.EncodeToString(user[:4])
}

// FindUser resolves a person: a display name (case-insensitive, an
// optional leading "@"), a 64-hex user id, or a unique prefix of at least 8
// hex digits of one. Revoked users are not found.
func (e *Engine) FindUser(s string) (identity.UserID, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	u, err := e.findUser(s)
	return u.ID, err
}

func (e *Engine) findUser(s string) (roster.UserInfo, error) {
	q := strings.TrimPrefix(strings.TrimSpace(s), "@")
	switch named := e.roster.UsersNamed(q); len(named) {
	case 0:
	case 1:
		return named[0], nil
	default:
		return roster.UserInfo{}, fmt.Errorf("%w (%q: %d people)", ErrAmbiguousUser, q, len(named))
	}
	var found []roster.UserInfo
	if len(q) >= 8 {
		lq := strings.ToLower(q)
		for _, u := range e.roster.Users() {
			if u.RevokedAt == nil && strings.HasPrefix(hexID(u.ID).hex(), lq) {
				found = append(found, u)
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return roster.UserInfo{}, fmt.Errorf("%w (%q)", ErrUnknownUser, q)
	default:
		return roster.UserInfo{}, fmt.Errorf("%w (%q: %d people)", ErrAmbiguousUser, q, len(found))
	}
}

// People lists the workspace's users in order of admission.
func (e *Engine) People() []Person {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := []Person{}
	for _, u := range e.roster.Users() {
		out = append(out, Person{User: hexID(u.ID).hex(), Name: e.userName(u.ID), Named: u.Name != "",
			Role: u.Role.String(), Revoked: u.RevokedAt != nil, You: u.ID == identity.UserID(e.meta.User),
			Joined: u.Joined.UTC(), Creator: u.Admitted.Index == 0})
	}
	return out
}

// nameAuthors sets each message's AuthorName from the roster now, for
// messages read from the index (which keeps the name at indexing time).
func (e *Engine) nameAuthors(ms []Message) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range ms {
		ms[i].AuthorName = e.authorName(ms[i].Author)
	}
}

func (e *Engine) authorName(userHex string) string {
	var id [32]byte
	if parseHexID(userHex, &id) != nil {
		return userHex
	}
	return e.userName(identity.UserID(id))
}
