package engine

import (
	"context"
	"time"

	"weald/backend/errcode"
)

// AlertSoloAdmin is the one reminder spec/lifecycle.md "Key compromise"
// asks for: "the client nags a solo admin to promote a second one, once,
// after the first other person joins. Nagging twice would be dishonest
// about how much we can help if they decline."
const AlertSoloAdmin errcode.Code = "admin/solo"

// RemindSoloAdmin raises AlertSoloAdmin on this device once ever: the
// first time it is called while this device's person is the workspace's
// only live admin and another person is in the workspace. Later calls,
// restarts and dismissals never raise it again (meta.SoloAdminNagged). The
// desktop calls it after each roster change; it reports whether it raised
// the reminder now.
func (e *Engine) RemindSoloAdmin(ctx context.Context) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.remindSoloAdmin(ctx)
}

func (e *Engine) remindSoloAdmin(ctx context.Context) bool {
	if !e.meta.SoloAdminNagged.IsZero() || e.agentMode() || !e.roster.IsAdmin(e.devID) || e.roster.LiveAdmins() != 1 {
		return false
	}
	me := e.meta.User
	other := false
	for _, u := range e.roster.Users() {
		if hexID(u.ID) != me && u.RevokedAt == nil {
			other = true
			break
		}
	}
	if !other {
		return false
	}
	e.meta.SoloAdminNagged = e.now().UTC()
	if err := e.persistMeta(ctx); err != nil {
		e.meta.SoloAdminNagged = time.Time{}
		return false
	}
	e.raise(ctx, Alert{Code: string(AlertSoloAdmin),
		Message: "You are this workspace's only admin. If you lose your devices and your recovery phrase, nobody can remove people, invite or approve devices: make someone you trust an admin too (People, Make admin). Weald says this once."})
	return true
}
