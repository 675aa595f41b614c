package engine

import (
	"context"

	"weald/backend/identity"
	"weald/backend/lifecycle"
	"weald/backend/roster"
)

// Roles (spec/lifecycle.md "If the removed person is the last admin";
// design/gaps.md "Roles"): promote and demote admins.

// Promote makes a person (user id or unique prefix) an admin.
func (e *Engine) Promote(ctx context.Context, user string) error {
	return e.setRole(ctx, user, roster.RoleAdmin)
}

// Demote makes an admin a member; demoting the last admin is refused
// before anything is written (removal/last_admin).
func (e *Engine) Demote(ctx context.Context, user string) error {
	return e.setRole(ctx, user, roster.RoleMember)
}

func (e *Engine) setRole(ctx context.Context, user string, role roster.Role) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return err
	}
	if !e.roster.IsAdmin(e.devID) {
		return lifecycle.ErrNotAdmin
	}
	u, err := e.findUser(user)
	if err != nil {
		return err
	}
	if role == roster.RoleMember && e.userAdminLive(u) && e.roster.LiveAdmins() <= 1 {
		return lifecycle.ErrLastAdmin
	}
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		cur, ok := e.roster.User(identity.UserID(u.ID))
		if !ok || cur.Role == role {
			return nil, nil
		}
		return &roster.SetRole{User: u.ID, Role: role}, nil
	}); err != nil {
		return err
	}
	e.emit(Event{Kind: EventRoster})
	// The access set carries each device's admin flag; a demoted admin
	// publishing it is refused, so only an admin still one publishes.
	if e.roster.IsAdmin(e.devID) {
		return e.publishAccessSet(ctx)
	}
	return nil
}
