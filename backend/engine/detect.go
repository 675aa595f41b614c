package engine

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/roster"
)

// Detection of roster changes (spec/lifecycle.md "Detection"): an
// admission or revocation the local user did not perform raises an alert
// naming the acting device, and a recovered device raises an approval
// request for every admin admitted before it. Quiet by default is wrong
// here: nobody has to go looking.

// Alert codes of roster detection.
const (
	AlertRosterChange    errcode.Code = "roster/unexpected_change"
	AlertRecoveredDevice errcode.Code = "device/recovered"
)

// detectedOps are the operation types that admit, revoke or change
// authority.
var detectedOps = map[roster.OpType]bool{
	roster.OpAdmitDevice: true, roster.OpAdmitAgent: true, roster.OpRedeemInvite: true,
	roster.OpRevoke: true, roster.OpSetRole: true, roster.OpRecoverDevice: true,
	roster.OpApproveDevice: true, roster.OpAdmitRecovery: true,
	roster.OpSetRecoveryQuorum: true, roster.OpVouchDevice: true,
}

// noticeRosterOp is called for each operation synced from the relay, just
// after it was applied at (0-based) position index. It
// says nothing about what happened before this device was admitted (a
// newcomer's first sync reads the whole history).
func (e *Engine) noticeRosterOp(ctx context.Context, index int, raw []byte) {
	me, ok := e.roster.Device(e.devID)
	if !ok || index <= me.Admitted.Index {
		return
	}
	op, err := roster.Decode(raw)
	if err != nil || !detectedOps[op.Type()] {
		return
	}
	self := identity.UserID(e.meta.User)
	if op.Actor.Kind == identity.KindDevice {
		if d, ok := e.roster.Device(identity.DeviceID(op.Actor.ID)); ok && d.User == self {
			return // this user did it (from this or another of its devices)
		}
	}
	switch b := op.Body.(type) {
	case *roster.AdmitRecovery:
		if b.User != self {
			return // every newcomer registers its own recovery key
		}
	case *roster.RedeemInvite:
		// Admitted by an invite this user created: this user admitted it.
		if inv, ok := e.roster.Invite(b.Invite); ok {
			if d, ok := e.roster.Device(inv.CreatedBy); ok && d.User == self {
				return
			}
		}
	}
	h := roster.HeadOf(raw)
	ref := &AlertOp{Index: index, Head: hex.EncodeToString(h[:])}
	actor := e.actorLabel(op.Actor)
	what := e.describeOp(op)
	e.raise(ctx, Alert{Code: string(AlertRosterChange), Op: ref, Actor: op.Actor.String(), Time: op.CreatedAt.UTC(),
		Message: fmt.Sprintf("%s %s (roster operation %d).", actor, what, index)})
	if rd, ok := op.Body.(*roster.RecoverDevice); ok && e.roster.IsAdmin(e.devID) {
		// An approval request to every admin admitted before the
		// recovered device (the only ones who can approve it).
		did := identity.DeviceIDOf(rd.Device)
		if d, ok := e.roster.Device(did); ok && me.Admitted.Index < d.Admitted.Index && d.Probation {
			e.raise(ctx, Alert{Code: string(AlertRecoveredDevice), Op: ref, Actor: op.Actor.String(), Time: op.CreatedAt.UTC(),
				Message: fmt.Sprintf("%s's recovery phrase (%s) was spent to admit device %s, which is on probation %s. If %s did not recover a device, revoke it: weald device revoke %s; else approve it: weald device approve %s.",
					e.userName(rd.User), identity.RecoveryID(op.Actor.ID).ShortString(), did.ShortString(), e.probationUntil(), e.userName(rd.User), hexID(did).hex()[:16], hexID(did).hex()[:16])})
		}
	} else if ok && rd.User != me.User && e.inQuorum(me.User) {
		// A member of the recovery quorum is asked to vouch (roster.md
		// "Recovery quorum"); only the person can tell them it was them.
		did := identity.DeviceIDOf(rd.Device)
		if d, ok := e.roster.Device(did); ok && me.Admitted.Index < d.Admitted.Index && d.Probation {
			e.raise(ctx, Alert{Code: string(AlertRecoveredDevice), Op: ref, Actor: op.Actor.String(), Time: op.CreatedAt.UTC(),
				Message: fmt.Sprintf("%s's recovery phrase (%s) was spent to admit device %s, which is on probation %s. You are in the recovery quorum: if %s tells you directly that they recovered a device, vouch for it: weald recovery vouch %s; if not, tell an admin to revoke it.",
					e.userName(rd.User), identity.RecoveryID(op.Actor.ID).ShortString(), did.ShortString(), e.probationUntil(), e.userName(rd.User), hexID(did).hex()[:16])})
		}
	}
}

// actorLabel names a signing principal: "Device dev_… of Sam", "Agent …",
// "The recovery principal rec_… of Sam".
func (e *Engine) actorLabel(p identity.Principal) string {
	switch p.Kind {
	case identity.KindDevice:
		if d, ok := e.roster.Device(identity.DeviceID(p.ID)); ok {
			return fmt.Sprintf("Device %s of %s", identity.DeviceID(p.ID).ShortString(), e.userName(d.User))
		}
	case identity.KindRecovery:
		if r, ok := e.roster.Recovery(identity.RecoveryID(p.ID)); ok {
			return fmt.Sprintf("The recovery phrase (%s) of %s", identity.RecoveryID(p.ID).ShortString(), e.userName(r.User))
		}
	case identity.KindAgent:
		if a, ok := e.roster.Agent(identity.AgentID(p.ID)); ok {
			return "Agent " + e.agentLabel(a)
		}
	}
	return p.String()
}

// describeOp says what an operation did, in words.
func (e *Engine) describeOp(op *roster.Operation) string {
	switch b := op.Body.(type) {
	case *roster.AdmitDevice:
		return fmt.Sprintf("admitted device %s for %s", identity.DeviceIDOf(b.Device).ShortString(), e.userName(b.User))
	case *roster.RedeemInvite:
		by := "an invite"
		if inv, ok := e.roster.Invite(b.Invite); ok && inv.Pairing != nil {
			return fmt.Sprintf("joined as a new device of %s by a pairing link of %s", e.userName(b.User),
				e.principalLabel(identity.DevicePrincipal(inv.CreatedBy)))
		} else if ok {
			by = "an invite of " + e.principalLabel(identity.DevicePrincipal(inv.CreatedBy))
		}
		return fmt.Sprintf("joined as %s by %s", e.userName(b.User), by)
	case *roster.AdmitAgent:
		return fmt.Sprintf("admitted or renewed agent %q", b.Name)
	case *roster.AdmitRecovery:
		return fmt.Sprintf("registered a new recovery phrase for %s", e.userName(b.User))
	case *roster.RecoverDevice:
		return fmt.Sprintf("admitted device %s for %s on probation", identity.DeviceIDOf(b.Device).ShortString(), e.userName(b.User))
	case *roster.ApproveDevice:
		return fmt.Sprintf("approved recovered device %s", b.Device.ShortString())
	case *roster.VouchDevice:
		return fmt.Sprintf("vouched for recovered device %s", b.Device.ShortString())
	case *roster.SetRecoveryQuorum:
		var names []string
		for _, u := range b.Users {
			names = append(names, e.userName(u))
		}
		return fmt.Sprintf("registered a recovery quorum: %d of %s", b.Threshold, strings.Join(names, ", "))
	case *roster.SetRole:
		return fmt.Sprintf("made %s %s", e.userName(b.User), b.Role)
	case *roster.Revoke:
		var names []string
		for _, t := range b.Targets {
			names = append(names, e.principalLabel(t))
		}
		return "revoked " + strings.Join(names, ", ")
	}
	return op.Type().String()
}

// principalLabel names a principal briefly.
func (e *Engine) principalLabel(p identity.Principal) string {
	switch p.Kind {
	case identity.KindUser:
		return e.userName(identity.UserID(p.ID))
	case identity.KindDevice:
		if d, ok := e.roster.Device(identity.DeviceID(p.ID)); ok {
			return fmt.Sprintf("device %s of %s", identity.DeviceID(p.ID).ShortString(), e.userName(d.User))
		}
	case identity.KindRecovery:
		if r, ok := e.roster.Recovery(identity.RecoveryID(p.ID)); ok {
			return fmt.Sprintf("the recovery phrase of %s", e.userName(r.User))
		}
	case identity.KindAgent:
		if a, ok := e.roster.Agent(identity.AgentID(p.ID)); ok {
			return "agent " + e.agentLabel(a)
		}
	}
	return p.String()
}
