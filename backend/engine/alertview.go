package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"weald/backend/identity"
	"weald/backend/roster"
)

// The kept alerts read for a person (the desktop's Security view,
// docs/protocol/desktop-ui.md "Security"): each with a plain sentence, the
// person and device that acted, the device it concerns, the actions this
// device can take about it now, and a tone. The tone is decided from what
// the roster operation shows: a change someone else made along the
// workspace's ordinary path (a join by an admin's invite, a device paired
// by its own person, an agent approved by the device that issued its
// certificate, a person revoking their own devices, agents or recovery
// phrase from a device of theirs) is a notice; every other alert stays a
// security alert.

// AlertTone is how an alert is shown: a notice (informational) or a
// security alert.
type AlertTone string

const (
	ToneNotice AlertTone = "notice"
	ToneAlert  AlertTone = "alert"
)

// AlertView is a kept alert with what a person needs to act on it.
type AlertView struct {
	Alert
	// ID names the alert stably (a hash of all its fields, its time
	// included), for an acknowledgement kept outside the engine.
	ID      string    `json:"id"`
	Tone    AlertTone `json:"tone"`
	Summary string    `json:"summary"` // one plain sentence
	// ActorName is the person (or agent, or "<name>'s recovery phrase")
	// that acted; ActorDevice the acting device (hex), if a device acted.
	ActorName   string `json:"actor_name,omitempty"`
	ActorDevice string `json:"actor_device,omitempty"`
	// Device is the device (hex) the alert concerns, DeviceName whose it is.
	Device     string `json:"device,omitempty"`
	DeviceName string `json:"device_name,omitempty"`
	// What this device can do about it now: approve the device (on
	// probation, and this is an admin device admitted before it), revoke
	// it (live, not this device, and this device's own person's or this
	// an admin device), rotate this user's recovery phrase (it was spent).
	Approve bool `json:"approve,omitempty"`
	Revoke  bool `json:"revoke,omitempty"`
	Rotate  bool `json:"rotate,omitempty"`
	// Vouch: vouch for the device as a member of the recovery quorum (on
	// probation, another person's, this device admitted before it and not
	// on probation, and this person has not vouched for it yet).
	Vouch bool `json:"vouch,omitempty"`
	// NamesPending: the sentence names a person by "user 1a2b3c4d" because
	// their name is not known yet (it comes with a set-name operation after
	// the one that admitted them): the view reads differently later.
	NamesPending bool `json:"names_pending,omitempty"`
}

// AlertViews lists the kept alerts, oldest first, each read against the
// roster as it is now. A roster-change alert about the same operation as
// an approval request (device/recovered) is left out: the request says
// more.
func (e *Engine) AlertViews(ctx context.Context) []AlertView {
	e.mu.Lock()
	defer e.mu.Unlock()
	var ops [][]byte
	loaded := false
	opAt := func(ref *AlertOp) *roster.Operation {
		if ref == nil {
			return nil
		}
		if !loaded {
			ops, _ = e.db.rosterOps(ctx)
			loaded = true
		}
		if ref.Index < 0 || ref.Index >= len(ops) {
			return nil
		}
		h := roster.HeadOf(ops[ref.Index])
		if hex.EncodeToString(h[:]) != ref.Head {
			return nil
		}
		op, err := roster.Decode(ops[ref.Index])
		if err != nil {
			return nil
		}
		return op
	}
	requested := map[string]bool{}
	for _, a := range e.alerts {
		if a.Code == string(AlertRecoveredDevice) && a.Op != nil {
			requested[a.Op.Head] = true
		}
	}
	out := []AlertView{}
	for _, a := range e.alerts {
		if a.Code == string(AlertRosterChange) && a.Op != nil && requested[a.Op.Head] {
			continue
		}
		out = append(out, e.alertView(a, opAt(a.Op)))
	}
	return out
}

// alertID is a stable id of a.
func alertID(a Alert) string {
	b, _ := json.Marshal(a)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// alertView reads one alert; op is the roster operation it names, if it
// names one this client holds.
func (e *Engine) alertView(a Alert, op *roster.Operation) AlertView {
	before := e.nameless.Load()
	v := e.readAlert(a, op)
	v.NamesPending = e.nameless.Load() != before
	return v
}

func (e *Engine) readAlert(a Alert, op *roster.Operation) AlertView {
	v := AlertView{Alert: a, ID: alertID(a), Tone: ToneAlert, Summary: plainSentence(a.Message)}
	if p, ok := parsePrincipal(a.Actor); ok {
		v.ActorName, v.ActorDevice = e.actorOf(p)
	}
	me := identity.UserID(e.meta.User)
	switch a.Code {
	case string(AlertRosterChange), string(AlertRecoveredDevice):
		if op != nil {
			e.readRosterAlert(&v, op)
		}
	case string(AlertTakeover):
		if did, ok := deviceOf(a.Actor); ok {
			if d, ok := e.roster.Device(did); ok {
				how := ""
				if d.Probation {
					how = ", on probation after a recovery,"
				}
				v.Summary = fmt.Sprintf("%s's device %s%s tried to change who may connect to the relay, and the relay refused it: an attempted takeover.",
					e.userName(d.User), did.ShortString(), how)
				e.concerns(&v, did)
				v.Rotate = d.User == me && d.Probation
			}
		}
	case "storage/near_budget", "health/failed", string(AlertSoloAdmin):
		v.Tone = ToneNotice
	}
	return v
}

// readRosterAlert fills v from the roster operation it names.
func (e *Engine) readRosterAlert(v *AlertView, op *roster.Operation) {
	me := identity.UserID(e.meta.User)
	actorDev, _ := deviceOf(v.Actor)
	actor, known := e.roster.Device(actorDev)
	actorLive := known && op.Actor.Kind == identity.KindDevice && !actor.Probation
	// The by-line names the acting device: the sentence names its person.
	who := e.actorLabel(op.Actor)
	if known && op.Actor.Kind == identity.KindDevice {
		who = e.userName(actor.User)
	}
	v.Summary = plainSentence(who + " " + e.describeOp(op))
	switch b := op.Body.(type) {
	case *roster.SetRole:
		role := "a member"
		if b.Role == roster.RoleAdmin {
			role = "an admin"
		}
		v.Summary = fmt.Sprintf("%s made %s %s.", who, e.userName(b.User), role)
	case *roster.RedeemInvite:
		did := identity.DeviceIDOf(b.Device)
		inv, ok := e.roster.Invite(b.Invite)
		if !ok {
			break
		}
		by, ok := e.roster.Device(inv.CreatedBy)
		if !ok || by.Probation {
			break
		}
		switch {
		case inv.Pairing != nil && *inv.Pairing == b.User && by.User == b.User:
			v.Tone = ToneNotice
			v.Summary = fmt.Sprintf("%s added a new device (%s) with a pairing link from their device %s.", e.userName(b.User), did.ShortString(), inv.CreatedBy.ShortString())
		case inv.Pairing == nil && by.User != b.User:
			v.Tone = ToneNotice
			as := ""
			if inv.Invite.Role == roster.RoleAdmin {
				as = " as an admin"
			}
			v.Summary = fmt.Sprintf("%s joined%s, admitted by %s's invite.", e.userName(b.User), as, e.userName(by.User))
		}
	case *roster.AdmitAgent:
		if actorLive && b.Cert != nil && b.Cert.IssuingDevice == actorDev {
			v.Tone = ToneNotice
			v.Summary = fmt.Sprintf("%s approved the agent “%s” (or renewed it) from their device %s.", e.userName(actor.User), b.Name, actorDev.ShortString())
		}
	case *roster.Revoke:
		if !actorLive || len(b.Targets) == 0 {
			break
		}
		if removed, ok := removedUser(b); ok && removed != actor.User {
			// A removal (desktop-ui.md "Security", tone): the workspace's
			// ordinary path when an admin did it, told to members as a
			// notice; another admin (who may have to answer for it) and
			// the removed person keep the security alert.
			v.Summary = fmt.Sprintf("%s removed %s from the workspace.", e.userName(actor.User), e.userName(removed))
			if e.roster.IsAdmin(actorDev) && !e.roster.IsAdmin(e.devID) && removed != me {
				v.Tone = ToneNotice
			}
			break
		}
		recovery := true
		var names []string
		for _, t := range b.Targets {
			if u, ok := e.ownerOf(t); !ok || u != actor.User {
				return
			}
			recovery = recovery && t.Kind == identity.KindRecovery
			names = append(names, e.principalLabel(t))
		}
		v.Tone = ToneNotice
		if recovery {
			v.Summary = fmt.Sprintf("%s replaced their recovery phrase, from their device %s.", e.userName(actor.User), actorDev.ShortString())
		} else {
			v.Summary = fmt.Sprintf("%s revoked their own %s, from their device %s.", e.userName(actor.User), strings.Join(names, ", "), actorDev.ShortString())
		}
	case *roster.RecoverDevice:
		did := identity.DeviceIDOf(b.Device)
		if b.User == me {
			v.Summary = fmt.Sprintf("Your recovery phrase was used to add device %s to your account; it is on probation %s. If you did not do this, revoke the device and rotate your recovery phrase.", did.ShortString(), e.probationUntil())
			v.Rotate = true
		} else {
			verb := "Approve"
			if !e.roster.IsAdmin(e.devID) && e.inQuorum(me) {
				verb = "As a member of the recovery quorum, vouch for"
			}
			v.Summary = fmt.Sprintf("%s's recovery phrase was used to add device %s for %s; it is on probation %s. %s it only if %s says they recovered a device.",
				e.userName(b.User), did.ShortString(), e.userName(b.User), e.probationUntil(), verb, e.userName(b.User))
		}
		e.concerns(v, did)
	case *roster.AdmitDevice:
		did := identity.DeviceIDOf(b.Device)
		v.Summary = fmt.Sprintf("%s added device %s for %s directly, without an invite or a pairing link.", e.actorLabel(op.Actor), did.ShortString(), e.userName(b.User))
		e.concerns(v, did)
	case *roster.VouchDevice:
		if d, ok := e.roster.Device(b.Device); ok {
			v.Summary = fmt.Sprintf("%s vouched, as a member of the recovery quorum, for device %s of %s, which a recovery phrase had added.", who, b.Device.ShortString(), e.userName(d.User))
			e.concerns(v, b.Device)
		}
	case *roster.ApproveDevice:
		if d, ok := e.roster.Device(b.Device); ok {
			v.Summary = fmt.Sprintf("%s approved device %s of %s, which a recovery phrase had added.", e.actorLabel(op.Actor), b.Device.ShortString(), e.userName(d.User))
			e.concerns(v, b.Device)
		}
		if b.Device == e.devID && actorLive {
			// This device was recovered and waited for exactly this: told,
			// not alarmed. The person's other devices keep the red alert.
			v.Tone = ToneNotice
			v.Summary = fmt.Sprintf("%s approved this device: its probation after your recovery is over.", e.userName(actor.User))
		}
	}
}

// removedUser is the person a revoke removes from the workspace: the one
// whose user principal it revokes (a removal, engine Remove).
func removedUser(b *roster.Revoke) (identity.UserID, bool) {
	for _, t := range b.Targets {
		if t.Kind == identity.KindUser {
			return identity.UserID(t.ID), true
		}
	}
	return identity.UserID{}, false
}

// concerns names did as the device v is about and what this device can
// do about it now.
func (e *Engine) concerns(v *AlertView, did identity.DeviceID) {
	d, ok := e.roster.Device(did)
	if !ok {
		return
	}
	v.Device, v.DeviceName = hexID(did).hex(), e.userName(d.User)
	live := d.RevokedAt == nil
	admin := e.roster.IsAdmin(e.devID)
	me, _ := e.roster.Device(e.devID)
	v.Approve = live && d.Probation && admin && me.Admitted.Index < d.Admitted.Index
	v.Revoke = live && did != e.devID && (admin || d.User == identity.UserID(e.meta.User))
	v.Vouch = live && d.Probation && d.User != me.User && e.inQuorum(me.User) && !me.Probation && e.roster.DeviceLive(e.devID) &&
		me.Admitted.Index < d.Admitted.Index && !slices.Contains(d.Vouches, me.User)
}

// ownerOf is the user a device, recovery principal or agent (by its
// certificate's issuing device) belongs to.
func (e *Engine) ownerOf(p identity.Principal) (identity.UserID, bool) {
	switch p.Kind {
	case identity.KindDevice:
		d, ok := e.roster.Device(identity.DeviceID(p.ID))
		return d.User, ok
	case identity.KindRecovery:
		r, ok := e.roster.Recovery(identity.RecoveryID(p.ID))
		return r.User, ok
	case identity.KindAgent:
		if a, ok := e.roster.Agent(identity.AgentID(p.ID)); ok && a.Cert != nil {
			d, ok := e.roster.Device(a.Cert.IssuingDevice)
			return d.User, ok
		}
	}
	return identity.UserID{}, false
}

// actorOf names the person behind a principal, and the device if it is one.
func (e *Engine) actorOf(p identity.Principal) (name, device string) {
	switch p.Kind {
	case identity.KindDevice:
		if d, ok := e.roster.Device(identity.DeviceID(p.ID)); ok {
			return e.userName(d.User), hexID(p.ID).hex()
		}
		return "", hexID(p.ID).hex()
	case identity.KindRecovery:
		if r, ok := e.roster.Recovery(identity.RecoveryID(p.ID)); ok {
			return e.userName(r.User) + "'s recovery phrase", ""
		}
	case identity.KindAgent:
		if a, ok := e.roster.Agent(identity.AgentID(p.ID)); ok {
			return "agent " + e.agentLabel(a), ""
		}
	}
	return "", ""
}

// parsePrincipal reads "<dev|agent|rec|user>_<64 hex>".
func parsePrincipal(s string) (identity.Principal, bool) {
	pre, rest, ok := strings.Cut(s, "_")
	if !ok || len(rest) != 64 {
		return identity.Principal{}, false
	}
	var id [32]byte
	if _, err := hex.Decode(id[:], []byte(rest)); err != nil {
		return identity.Principal{}, false
	}
	kinds := map[string]identity.PrincipalKind{"dev": identity.KindDevice, "agent": identity.KindAgent, "rec": identity.KindRecovery, "user": identity.KindUser}
	k, ok := kinds[pre]
	if !ok {
		return identity.Principal{}, false
	}
	return identity.Principal{Kind: k, ID: id}, true
}

// deviceOf reads a device principal's id.
func deviceOf(s string) (identity.DeviceID, bool) {
	p, ok := parsePrincipal(s)
	if !ok || p.Kind != identity.KindDevice {
		return identity.DeviceID{}, false
	}
	return identity.DeviceID(p.ID), true
}

// plainSentence starts s with a capital and ends it with a full stop.
func plainSentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "!") && !strings.HasSuffix(s, "?") {
		s += "."
	}
	return s
}

// ProbationApprovable lists the devices (hex) on probation that this
// device may approve now: it is an admin device admitted before them.
func (e *Engine) ProbationApprovable() map[string]bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string]bool{}
	if !e.roster.IsAdmin(e.devID) {
		return out
	}
	me, _ := e.roster.Device(e.devID)
	for _, u := range e.roster.Users() {
		for _, id := range u.Devices {
			if d, ok := e.roster.Device(id); ok && d.Probation && d.RevokedAt == nil && me.Admitted.Index < d.Admitted.Index {
				out[hexID(id).hex()] = true
			}
		}
	}
	return out
}

// RecoveryRotationPending reports whether a recovery-phrase rotation was
// started and has not finished: RotateRecovery resumes it, with the same
// new phrase.
func (e *Engine) RecoveryRotationPending() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.meta.RotatePhrase != ""
}
