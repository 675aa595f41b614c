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
	type refused struct {
		did identity.DeviceID
		set wire.AccessSet
	}
	var found []refused
	var signers []identity.DeviceID
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
		found = append(found, refused{did, set})
		signers = append(signers, did)
	}
	held := e.heldAdmin(ctx, signers)
	for _, f := range found {
		if held[f.did] {
			continue // a publication that crossed its demotion
		}
		d, _ := e.roster.Device(f.did)
		how := ""
		if d.Probation {
			how = ", on probation"
			if rec := e.recoveredBy(ctx, d.Public); rec != nil {
				how = fmt.Sprintf(", on probation since the recovery phrase %s of %s admitted it,", identity.RecoveryID(rec.ID).ShortString(), e.userName(d.User))
			}
		}
		e.raise(ctx, Alert{Code: string(AlertTakeover), Actor: identity.DevicePrincipal(f.did).String(),
			Message: fmt.Sprintf("Device %s of %s%s tried to publish access set version %d, which the relay refused: an attempted takeover. Revoke it unless you know why: weald device revoke %s.",
				f.did.ShortString(), e.userName(d.User), how, f.set.Version, hexID(f.did).hex()[:16])})
	}
	return e.persistMeta(ctx)
}

// heldAdmin is the set of devices (of those given) that held admin authority at some point
// of the roster this device holds, replayed from its first operation. A
// refused set signed by one of them is no takeover: its device signed it
// from the roster it held, in which it was an admin, while the relay had
// already folded its demotion (an admin demoted while its device
// republished the access set). The set is refused all the same. What this
// leaves untold is a device demoted, not revoked, that publishes later on
// purpose; a claim of the roster it signed from could not tell the two
// apart either, since its signer picks it. A device on probation holds no
// admin authority (roster.State.IsAdmin), so a recovered device is never
// in the set until an admin approved it.
func (e *Engine) heldAdmin(ctx context.Context, devices []identity.DeviceID) map[identity.DeviceID]bool {
	held := map[identity.DeviceID]bool{}
	if len(devices) == 0 {
		return held
	}
	ops, err := e.db.rosterOps(ctx)
	if err != nil {
		return held
	}
	s := roster.New(roster.Options{})
	for _, raw := range ops {
		if s.ApplyBytes(raw) != nil {
			break
		}
		for _, d := range devices {
			if s.IsAdmin(d) {
				held[d] = true
			}
		}
	}
	return held
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
