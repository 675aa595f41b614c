package engine

import (
	"context"
	"fmt"
	"strings"

	"weald/backend/identity"
	"weald/backend/roster"
)

// A leaked recovery phrase (spec/lifecycle.md "Key compromise": "Rotate
// from settings. The old recovery principal is revoked, a new phrase is
// generated and confirmed, and every group re-wraps to the new key").

// RecoveryRotation is what RotateRecovery did.
type RecoveryRotation struct {
	// Phrase is the new recovery phrase: show it once, have it confirmed.
	Phrase string `json:"phrase"`
	// Revoked is the old recovery principal (rec_…), if there was one.
	Revoked string `json:"revoked,omitempty"`
	// Recovery is the new recovery principal.
	Recovery string `json:"recovery"`
	// Rewrapped counts the groups that got a recovery.wrap for the new key.
	Rewrapped int `json:"rewrapped"`
	// AccessVersion is the access set published without the old key (0
	// when this device is no admin: an admin's next sync publishes it, and
	// until then the relay still lets the old key connect, though the
	// roster no longer lets it sign anything).
	AccessVersion uint64 `json:"access_set_version"`
}

// RotateRecovery replaces this user's recovery phrase: a new phrase is
// drawn and kept (so a crash resumes with the same one), the old recovery
// principal is revoked (roster revoke), the new one admitted
// (admit-recovery), every group this device is in gets a recovery.wrap for
// the new key at its current epoch, named in the new phrase's recovery tag
// directory, the old phrase's directory is dropped, and an admin device publishes the
// access set without the old key. Run again after a crash it finishes the
// same rotation.
func (e *Engine) RotateRecovery(ctx context.Context) (RecoveryRotation, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var res RecoveryRotation
	if err := e.connect(ctx); err != nil {
		return res, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return res, err
	}
	if !e.roster.DeviceLive(e.devID) {
		return res, ErrRevokeSelf
	}
	if e.meta.RotatePhrase == "" {
		p, err := identity.NewRecoveryPhrase(e.rand)
		if err != nil {
			return res, err
		}
		e.meta.RotatePhrase = strings.Join(p.Words(), " ")
		if err := e.persistMeta(ctx); err != nil {
			return res, err
		}
	}
	phrase, err := identity.ParseRecoveryPhrase(e.meta.RotatePhrase)
	if err != nil {
		return res, err
	}
	keys, err := identity.DeriveRecoveryKeys(phrase)
	if err != nil {
		return res, err
	}
	pub := keys.Signature.Public()
	newID := identity.RecoveryIDOf(pub)
	user := identity.UserID(e.meta.User)
	// 1. Revoke every live recovery principal of this user but the new one.
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		var old []identity.Principal
		u, _ := e.roster.User(user)
		for _, id := range u.Recovery {
			if r, ok := e.roster.Recovery(id); ok && r.RevokedAt == nil && id != newID {
				old = append(old, identity.RecoveryPrincipal(id))
				res.Revoked = id.String()
			}
		}
		if len(old) == 0 {
			return nil, nil
		}
		return &roster.Revoke{RevokedAt: e.now(), Targets: old}, nil
	}); err != nil {
		return res, fmt.Errorf("revoke the old recovery phrase: %w", err)
	}
	// 2. Admit the new one.
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		if r, ok := e.roster.Recovery(newID); ok && r.RevokedAt == nil {
			return nil, nil
		}
		proof, err := roster.RecoveryPossession(e.wsID(), user, keys.Signature)
		if err != nil {
			return nil, err
		}
		return &roster.AdmitRecovery{User: user, Recovery: pub, HPKE: keys.HPKE.PublicBytes(), Possession: proof}, nil
	}); err != nil {
		return res, fmt.Errorf("register the new recovery phrase: %w", err)
	}
	res.Recovery = newID.String()
	// 3. Re-wrap every group this device is in to the new key.
	for _, gi := range e.roster.Groups() {
		g := e.groups[gi.Policy.Group]
		if gi.Deleted || g == nil || g.mls == nil || !g.mls.Active() {
			continue
		}
		if err := e.catchUp(ctx, g); err != nil {
			return res, err
		}
		if err := e.resendWrap(ctx, g); err != nil {
			return res, fmt.Errorf("re-wrap %s: %w", gi.Name, err)
		}
		res.Rewrapped++
	}
	if err := e.flushRecoveryDir(ctx); err != nil {
		return res, fmt.Errorf("name the new wraps in the recovery directory: %w", err)
	}
	// The old phrase's recovery tag directory goes: its slots would tell
	// whoever holds it where this person's (now stale) wraps are. Only
	// after the new wraps are named, so a stop in between leaves a slot.
	if _, err := e.dropOldRecoveryDirs(ctx, newID); err != nil {
		return res, fmt.Errorf("drop the old recovery phrase's directory: %w", err)
	}
	// 4. The access set without the old key.
	if e.roster.IsAdmin(e.devID) {
		if err := e.publishAccessSet(ctx); err != nil {
			return res, err
		}
		cur, err := e.client.CurrentAccessSet(ctx)
		if err != nil {
			return res, err
		}
		res.AccessVersion = cur.Set.Version
	}
	res.Phrase = e.meta.RotatePhrase
	e.meta.RotatePhrase = ""
	e.meta.Phrase, e.meta.PhraseTaken = "", false // an older phrase waiting to be shown is void
	if err := e.persistMeta(ctx); err != nil {
		return res, err
	}
	e.emit(Event{Kind: EventRoster})
	return res, nil
}
