package engine

import (
	"context"
	"errors"
	"fmt"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/wire"
)

// An attempted takeover (spec/lifecycle.md "Detection": "rejected
// access-set publication by a probationary authorizer ... notify every
// pre-existing admin naming the recovery principal spent"). The relay
// keeps each publication it refused for want of admin authority
// (ACCESS_REFUSALS); an admin's sync reads the new ones, checks each
// signature itself and raises access/takeover naming the device and, for
// a recovered device, the recovery principal that admitted it.

// AlertTakeover is the code of an attempted takeover.
const AlertTakeover errcode.Code = "access/takeover"

// checkRefusals reads the refusals after the last one seen (admins only).
func (e *Engine) checkRefusals(ctx context.Context) error {
	if !e.roster.IsAdmin(e.devID) {
		return nil
	}
	res, err := e.client.AccessRefusals(ctx, e.meta.RefusalsSeen)
	var we *wire.Error
	if errors.As(err, &we) && we.Code == wire.CodeUnknownFrame {
		return nil // a relay that keeps none
	}
	if err != nil {
		return err
	}
	if len(res.Refusals) == 0 {
		return nil
	}
	me, _ := e.roster.Device(e.devID)
	for _, r := range res.Refusals {
		if r.ID > e.meta.RefusalsSeen {
			e.meta.RefusalsSeen = r.ID
		}
		set, err := wire.DecodeAccessSet(r.Set)
		if err != nil || set.Workspace != wire.ID(e.wsID()) || set.VerifySignature() != nil {
			continue // not something a device of this workspace signed
		}
		did := identity.DeviceID(wire.KeyID(set.Signer))
		d, ok := e.roster.Device(did)
		if !ok || did == e.devID || d.Admitted.Index < me.Admitted.Index {
			continue
		}
		how := ""
		if d.Probation {
			how = ", on probation"
			if rec := e.recoveredBy(ctx, d.Public); rec != nil {
				how = fmt.Sprintf(", on probation since the recovery phrase %s of %s admitted it,", identity.RecoveryID(rec.ID).ShortString(), e.userName(d.User))
			}
		}
		e.raise(ctx, Alert{Code: string(AlertTakeover), Actor: identity.DevicePrincipal(did).String(),
			Message: fmt.Sprintf("Device %s of %s%s tried to publish access set version %d, which the relay refused: an attempted takeover. Revoke it unless you know why: weald device revoke %s.",
				did.ShortString(), e.userName(d.User), how, set.Version, hexID(did).hex()[:16])})
	}
	return e.persistMeta(ctx)
}

// recoveredBy is the recovery principal whose recover-device admitted the
// device key pub, if one did.
func (e *Engine) recoveredBy(ctx context.Context, pub identity.DevicePublic) *identity.Principal {
	ops, err := e.db.rosterOps(ctx)
	if err != nil {
		return nil
	}
	for _, raw := range ops {
		op, err := roster.Decode(raw)
		if err != nil {
			continue
		}
		if rd, ok := op.Body.(*roster.RecoverDevice); ok && rd.Device.Equal(pub) {
			return &op.Actor
		}
	}
	return nil
}
