package relay

import (
	"context"
	"errors"
	"time"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// Key packages (design/gaps.md "Key packages"; docs/protocol/wire.md "Roster
// and key packages"). What bounds them (issue 11 finding 5,
// docs/security.md §5): the one-use packages per key (MaxKeyPackages), the
// bytes of all packages of a workspace (Config.MaxKeyPackageBytes), who may
// claim (a device or agent of the current access set: the principals that
// add members to groups; not a grant connection, not a recovery key), and
// how fast one key's packages can be claimed (a token bucket per owner).

// Defaults for the key-package fields of [Config] left zero.
const (
	DefaultMaxKeyPackageBytes = 64 << 20
	DefaultClaimBurst         = 64
	DefaultClaimInterval      = 5 * time.Second
)

// claimBucket is one owner's claim allowance.
type claimBucket struct {
	tokens float64
	last   time.Time
}

// maxClaimBuckets bounds the owners tracked; past it the full buckets are
// forgotten (a forgotten owner starts full, which is where it was).
const maxClaimBuckets = 1 << 16

// takeClaim spends one claim of owner's packages; when none is left it
// returns how long until one is.
func (s *Service) takeClaim(ws, owner wire.ID) (bool, time.Duration) {
	return s.takeClaims(ws, []wire.ID{owner})
}

// takeClaims spends one claim per entry of owners (an owner named n times
// spends n), all or none: when an owner has fewer left than asked, nothing
// is spent and it returns how long until that owner has them.
func (s *Service) takeClaims(ws wire.ID, owners []wire.ID) (bool, time.Duration) {
	now := s.now()
	burst := float64(s.claimBurst)
	rate := 1 / s.claimInterval.Seconds()
	want := map[wire.ID]float64{}
	for _, o := range owners {
		want[o]++
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	buckets := make(map[wire.ID]*claimBucket, len(want))
	var wait time.Duration
	for owner, n := range want {
		k := [2]wire.ID{ws, owner}
		b := s.claims[k]
		if b == nil {
			if len(s.claims) >= maxClaimBuckets {
				for key, old := range s.claims {
					if old.tokens+now.Sub(old.last).Seconds()*rate >= burst {
						delete(s.claims, key)
					}
				}
			}
			b = &claimBucket{tokens: burst, last: now}
			s.claims[k] = b
		}
		if dt := now.Sub(b.last).Seconds(); dt > 0 {
			b.tokens = min(burst, b.tokens+dt*rate)
			b.last = now
		}
		if b.tokens < n {
			wait = max(wait, time.Duration((n-b.tokens)/rate*float64(time.Second)))
		}
		buckets[owner] = b
	}
	if wait > 0 {
		return false, wait
	}
	for owner, n := range want {
		buckets[owner].tokens -= n
	}
	return true, 0
}

// KeyPackagePut stores key packages for the authenticated principal's key
// (design/gaps.md "Key packages"): one-use packages, and at most one
// last-resort package (a new one replaces the old). The whole put is
// refused when it would leave the key more than MaxKeyPackages one-use
// packages or the workspace more than MaxKeyPackageBytes of packages.
func (s *Service) KeyPackagePut(ctx context.Context, ws wire.ID, p wire.AuthOK, items []wire.KeyPackageItem) (*wire.KeyPackageStock, error) {
	if p.Kind == wire.PrincipalRecovery || p.Kind == wire.PrincipalNone {
		return nil, wire.Errorf(wire.CodeKeyPackageKind, "Only devices and agents publish key packages.")
	}
	if len(items) == 0 || len(items) > s.maxBatch {
		return nil, wire.Errorf(wire.CodeLimitBatchSize, "Put between one and the batch limit of key packages at once.", wire.U("limit", uint64(s.maxBatch)))
	}
	for _, it := range items {
		if len(it.KeyPackage) == 0 {
			return nil, wire.Errorf(wire.CodeMalformed, "A key package is not empty.")
		}
		if len(it.KeyPackage) > wire.MaxKeyPackageSize {
			return nil, wire.Errorf(wire.CodeMalformed, "A key package is larger than the relay accepts.")
		}
	}
	var out *wire.KeyPackageStock
	err := s.st.Update(ctx, func(tx store.Tx) error {
		if _, err := lockWorkspace(ctx, tx, ws); err != nil {
			return err
		}
		for _, it := range items {
			if err := tx.PutKeyPackage(ctx, ws, p.Principal, store.KeyPackage{Body: it.KeyPackage, LastResort: it.LastResort}, s.unix()); err != nil {
				return err
			}
		}
		n, lr, err := tx.KeyPackageStock(ctx, ws, p.Principal)
		if err != nil {
			return err
		}
		if n > MaxKeyPackages {
			return wire.Errorf(wire.CodeLimitKeyPackages, "This device already stores the most one-use key packages the relay keeps.",
				wire.U("limit", MaxKeyPackages))
		}
		total, err := tx.KeyPackageBytes(ctx, ws)
		if err != nil {
			return err
		}
		if total > s.maxKPBytes {
			return wire.Errorf(wire.CodeLimitKeyPackageBytes, "The workspace's key packages would take more bytes than the relay keeps for them.",
				wire.U("limit_bytes", uint64(s.maxKPBytes)))
		}
		out = &wire.KeyPackageStock{OneUse: uint32(n), LastResort: lr}
		return nil
	})
	return out, err
}

// KeyPackageClaim takes one key package of owner: the oldest one-use package
// (removed), or when none is left the last-resort package (kept). Only a
// device or agent of the current access set may claim, and one owner's
// packages only at the claim rate (limit/rate {retry_after_ms}), so that no
// principal can drain another device's stock.
func (s *Service) KeyPackageClaim(ctx context.Context, ws wire.ID, p wire.AuthOK, owner wire.ID) (*wire.KeyPackageClaimed, error) {
	if err := s.mayClaim(ctx, ws, p); err != nil {
		return nil, err
	}
	if ok, wait := s.takeClaim(ws, owner); !ok {
		return nil, wire.Errorf(wire.CodeLimitRate, "That device's key packages are being claimed too fast; retry later.",
			wire.U("retry_after_ms", uint64(wait.Milliseconds()+1)))
	}
	var out *wire.KeyPackageClaimed
	err := s.st.Update(ctx, func(tx store.Tx) error {
		if _, err := lockWorkspace(ctx, tx, ws); err != nil {
			return err
		}
		kp, err := tx.ClaimKeyPackage(ctx, ws, owner)
		if errors.Is(err, store.ErrNotFound) {
			return wire.Errorf(wire.CodeKeyPackageNone, "That device has no key package on the relay.", wire.B("owner", owner[:]))
		}
		if err != nil {
			return err
		}
		out = &wire.KeyPackageClaimed{Owner: owner, KeyPackage: kp.Body, LastResort: kp.LastResort}
		return nil
	})
	return out, err
}

// KeyPackageClaimBatch is KeyPackageClaim for each entry of owners, in one
// request and one transaction (approving an agent claims one of its
// packages per group it is added to): the same principals may claim, each
// entry spends one claim of its owner's rate, all or none
// (limit/rate {retry_after_ms} refuses the whole batch), and an owner with
// no package left for an entry answers that entry not found instead of
// refusing the batch.
func (s *Service) KeyPackageClaimBatch(ctx context.Context, ws wire.ID, p wire.AuthOK, owners []wire.ID) ([]wire.ClaimedItem, error) {
	if len(owners) == 0 || len(owners) > wire.MaxClaimBatch {
		return nil, wire.Errorf(wire.CodeLimitBatchSize, "Claim between one and the batch limit of key packages at once.",
			wire.U("limit", wire.MaxClaimBatch))
	}
	if err := s.mayClaim(ctx, ws, p); err != nil {
		return nil, err
	}
	if ok, wait := s.takeClaims(ws, owners); !ok {
		return nil, wire.Errorf(wire.CodeLimitRate, "Those devices' key packages are being claimed too fast; retry later.",
			wire.U("retry_after_ms", uint64(wait.Milliseconds()+1)))
	}
	var out []wire.ClaimedItem
	err := s.st.Update(ctx, func(tx store.Tx) error {
		out = out[:0]
		if _, err := lockWorkspace(ctx, tx, ws); err != nil {
			return err
		}
		for _, owner := range owners {
			kp, err := tx.ClaimKeyPackage(ctx, ws, owner)
			if errors.Is(err, store.ErrNotFound) {
				out = append(out, wire.ClaimedItem{Owner: owner})
				continue
			}
			if err != nil {
				return err
			}
			out = append(out, wire.ClaimedItem{Owner: owner, Found: true, KeyPackage: kp.Body, LastResort: kp.LastResort})
		}
		return nil
	})
	return out, err
}

// mayClaim is who may claim key packages: a device or agent key of the
// workspace's current access set.
func (s *Service) mayClaim(ctx context.Context, ws wire.ID, p wire.AuthOK) error {
	if p.Kind != wire.PrincipalDevice && p.Kind != wire.PrincipalAgent {
		return wire.Errorf(wire.CodeKeyPackageKind, "Only a device or agent of the workspace may claim key packages.")
	}
	c, err := s.viewSet(ctx, ws)
	if err != nil {
		return err
	}
	if k, in := c.kinds[p.Principal]; !in || k != p.Kind {
		return wire.Errorf(wire.CodeAuthRevoked, "This key is no longer in the workspace's access set.")
	}
	return nil
}
