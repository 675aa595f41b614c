package engine

import (
	"bytes"
	"context"
	"fmt"

	"weald/backend/identity"
	"weald/backend/wire"
)

// A relay deletes envelopes only below a drop barrier and by an
// admin-signed WRAPS_DELETE (spec/lifecycle.md "What the relay never
// does"). Every FETCH answer accounts for the seqs it passes over
// (docs/protocol/wire.md "Gaps"); this client reads past a missing seq only
// when it can check why it is missing, so a relay that withholds an
// envelope cannot make it skip it for good (issue 11, docs/security.md
// section 8).

// fetched is one FETCH answer cut to what it accounts for.
type fetched struct {
	envs    []wire.SeqEnvelope
	through uint64 // every seq up to it is in envs, dropped or deleted
	more    bool   // the group has seqs past through, and no gap stopped the read
	dropped uint64 // the verified drop barrier (0: none)
}

// fetchPage fetches the page of group after afterSeq and keeps it up to the
// first seq the relay passed over without a deletion this client can
// check: for that gap it raises a relay/withheld alert naming the group and
// the seqs, and reports no more, so the cursor stays before the gap and the
// next sync asks again.
func (e *Engine) fetchPage(ctx context.Context, group wire.ID, afterSeq uint64) (fetched, error) {
	r, ok := e.prefetched[fetchKey{group, afterSeq}]
	if ok {
		delete(e.prefetched, fetchKey{group, afterSeq})
	} else {
		var err error
		if r, err = e.client.Fetch(ctx, group, afterSeq, 0); err != nil {
			return fetched{}, err
		}
	}
	barrier := e.verifiedBarrier(ctx, group, afterSeq, r.DroppedBelow)
	deleted := r.DeletedSeqs(wire.ID(e.meta.Workspace), afterSeq, func(key []byte) bool { return e.isRosterDeviceKey(ctx, key) })
	upto, gap, ok := r.Account(afterSeq, barrier, deleted)
	out := fetched{through: max(upto, afterSeq), more: r.More && ok && upto == r.Through, dropped: barrier}
	for _, se := range r.Envelopes {
		if se.Seq > upto {
			break
		}
		out.envs = append(out.envs, se)
	}
	if !ok {
		e.alertWithheld(ctx, group, gap)
	}
	return out, nil
}

// alertWithheld raises relay/withheld for a gap of group.
func (e *Engine) alertWithheld(ctx context.Context, group wire.ID, gap wire.Gap) {
	seqs := fmt.Sprintf("envelope %d", gap.From)
	if gap.To > gap.From {
		seqs = fmt.Sprintf("envelopes %d to %d", gap.From, gap.To)
	}
	e.raise(ctx, Alert{Code: "relay/withheld", Group: hexID(group).hex(),
		Message: fmt.Sprintf("The relay left out %s of this channel without a deletion this device can check; nothing after them is read until the relay serves them.", seqs)})
}

// verifiedBarrier returns claimed, the drop barrier a FETCH after afterSeq
// reported, if it explains missing seqs after afterSeq and this client can
// check it: the envelope at seq claimed is a checkpoint of group, signed by
// a device of the roster, whose manifest hash and signature verify (the
// relay keeps it as an anchor). Otherwise it returns 0: no seq counts as
// dropped.
func (e *Engine) verifiedBarrier(ctx context.Context, group wire.ID, afterSeq, claimed uint64) uint64 {
	if claimed <= afterSeq+1 {
		return claimed // no seq after afterSeq is below it
	}
	if e.barriers[group] >= claimed {
		return claimed
	}
	r, err := e.client.Fetch(ctx, group, claimed-1, 1)
	if err != nil || len(r.Envelopes) == 0 || r.Envelopes[0].Seq != claimed {
		return 0
	}
	env := &r.Envelopes[0].Envelope
	if env.Kind != wire.KindCheckpoint || env.Group != group {
		return 0
	}
	pub, ok := e.devicePub(env.Author)
	if !ok {
		if _, err := e.syncRoster(ctx); err != nil {
			return 0
		}
		if pub, ok = e.devicePub(env.Author); !ok {
			return 0
		}
	}
	if wire.VerifyEnvelope(env, pub) != nil {
		return 0
	}
	cp, err := wire.DecodeCheckpoint(env.CT)
	if err != nil || cp.Group != group || cp.Verify() != nil {
		return 0
	}
	if e.barriers == nil {
		e.barriers = map[wire.ID]uint64{}
	}
	e.barriers[group] = claimed
	return claimed
}

// isRosterDeviceKey reports whether key is the key of a device the roster
// admitted (live or since revoked: the relay checked it was an admin device
// of the access set when it deleted; docs/security.md section 8).
func (e *Engine) isRosterDeviceKey(ctx context.Context, key []byte) bool {
	p, err := identity.PublicFromBytes[identity.Device](key)
	if err != nil {
		return false
	}
	id := wire.ID(identity.DeviceIDOf(p))
	pub, ok := e.devicePub(id)
	if !ok {
		if _, err := e.syncRoster(ctx); err != nil {
			return false
		}
		pub, ok = e.devicePub(id)
	}
	return ok && bytes.Equal(pub, key)
}
