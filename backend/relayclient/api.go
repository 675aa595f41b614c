package relayclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	"weald/backend/wire"
)

// retry says whether a request is sent again on a new connection when the
// old one was lost before the answer.
type retry bool

const (
	retryOnReconnect retry = true  // reads and idempotent writes
	noRetry          retry = false // the caller decides (the write may have happened)
)

// do sends a request and returns its answer. limit/rate answers are waited
// out and retried; quota/log_budget_exhausted and every other protocol error
// are returned at once.
func (c *Client) do(ctx context.Context, body wire.Body, r retry) (wire.Body, error) {
	for {
		s, err := c.session(ctx)
		if err != nil {
			return nil, err
		}
		res, err := s.roundTrip(ctx, c.newID(), body)
		if errors.Is(err, ErrDisconnected) && r == retryOnReconnect && ctx.Err() == nil {
			// Wait for the supervisor to retire this session, then retry
			// on the next one.
			select {
			case <-s.done:
			case <-ctx.Done():
				return nil, errors.Join(ctx.Err(), err)
			}
			continue
		}
		var we *wire.Error
		if errors.As(err, &we) && we.Code == wire.CodeLimitRate {
			ms, _ := we.UintField("retry_after_ms")
			select {
			case <-ctx.Done():
				return nil, errors.Join(ctx.Err(), err)
			case <-c.clock.After(time.Duration(ms) * time.Millisecond):
			}
			continue
		}
		return res, err
	}
}

func expect[T wire.Body](res wire.Body, err error) (T, error) {
	var zero T
	if err != nil {
		return zero, err
	}
	t, ok := res.(T)
	if !ok {
		return zero, fmt.Errorf("relayclient: unexpected answer frame 0x%02x", uint8(res.FrameType()))
	}
	return t, nil
}

// Send submits envelopes as one all-or-nothing batch and returns the acks,
// which arrive only after the relay committed the batch. If the connection
// is lost first it returns ErrDisconnected: resend the same envelopes
// (chain/replay then means they were accepted).
func (c *Client) Send(ctx context.Context, envs ...wire.Envelope) ([]wire.AckItem, error) {
	a, err := expect[*wire.Ack](c.do(ctx, &wire.Send{Envelopes: envs}, noRetry))
	if err != nil {
		return nil, err
	}
	return a.Items, nil
}

// Fetch returns up to limit envelopes of group with seq > afterSeq (limit 0:
// the relay's page size).
func (c *Client) Fetch(ctx context.Context, group wire.ID, afterSeq uint64, limit uint32) (*wire.Envelopes, error) {
	return expect[*wire.Envelopes](c.do(ctx, &wire.Fetch{Group: group, AfterSeq: afterSeq, Limit: limit}, retryOnReconnect))
}

// Subscribe asks for pushes of each group's envelopes after the given seq;
// they arrive on Events as EventEnvelopes, and continue across reconnects.
func (c *Client) Subscribe(ctx context.Context, items ...wire.SubscribeItem) error {
	c.mu.Lock()
	for _, it := range items {
		if last, ok := c.subs[it.Group]; !ok || it.AfterSeq > last {
			c.subs[it.Group] = it.AfterSeq
		}
	}
	c.mu.Unlock()
	_, err := expect[*wire.OK](c.do(ctx, &wire.Subscribe{Items: items}, retryOnReconnect))
	if err != nil {
		c.mu.Lock()
		for _, it := range items {
			delete(c.subs, it.Group)
		}
		c.mu.Unlock()
	}
	return err
}

// Unsubscribe stops pushes for groups.
func (c *Client) Unsubscribe(ctx context.Context, groups ...wire.ID) error {
	c.mu.Lock()
	for _, g := range groups {
		delete(c.subs, g)
	}
	c.mu.Unlock()
	_, err := expect[*wire.OK](c.do(ctx, &wire.Unsubscribe{Groups: groups}, retryOnReconnect))
	return err
}

// RosterAppend appends an opaque operation if the roster head is expected
// (cas/conflict {head} otherwise).
func (c *Client) RosterAppend(ctx context.Context, expected wire.ID, op []byte) (*wire.RosterAppended, error) {
	return expect[*wire.RosterAppended](c.do(ctx, &wire.RosterAppend{ExpectedHead: expected, Op: op}, noRetry))
}

// RosterFetch returns roster operations with index > afterIndex.
func (c *Client) RosterFetch(ctx context.Context, afterIndex uint64, limit uint32) (*wire.RosterOps, error) {
	return expect[*wire.RosterOps](c.do(ctx, &wire.RosterFetch{AfterIndex: afterIndex, Limit: limit}, retryOnReconnect))
}

// PublishAccessSet publishes set as the next version (cas/conflict otherwise)
// and returns the accepted version.
func (c *Client) PublishAccessSet(ctx context.Context, set wire.AccessSet) (uint64, error) {
	a, err := expect[*wire.AccessSetAccepted](c.do(ctx, &wire.AccessSetPublish{Set: set}, noRetry))
	if err != nil {
		return 0, err
	}
	return a.Version, nil
}

// AccessSet returns the workspace's current access set.
func (c *Client) AccessSet(ctx context.Context) (wire.AccessSet, error) {
	a, err := c.CurrentAccessSet(ctx)
	if err != nil {
		return wire.AccessSet{}, err
	}
	return a.Set, nil
}

// CurrentAccessSet returns the workspace's current access set and when the
// relay accepted it.
func (c *Client) CurrentAccessSet(ctx context.Context) (*wire.AccessSetCurrent, error) {
	return expect[*wire.AccessSetCurrent](c.do(ctx, &wire.AccessSetGet{}, retryOnReconnect))
}

// AccessRefusals returns the access-set publications the relay refused
// for want of admin authority, with id > after (wire.AccessRefusals).
func (c *Client) AccessRefusals(ctx context.Context, after uint64) (*wire.AccessRefusals, error) {
	return expect[*wire.AccessRefusals](c.do(ctx, &wire.AccessRefusalsGet{After: after}, retryOnReconnect))
}

// PutKeyPackages stores key packages for the authenticated device.
func (c *Client) PutKeyPackages(ctx context.Context, items ...wire.KeyPackageItem) (*wire.KeyPackageStock, error) {
	return expect[*wire.KeyPackageStock](c.do(ctx, &wire.KeyPackagePut{Items: items}, noRetry))
}

// ClaimKeyPackage takes one key package of owner (keypackage/none if none).
func (c *Client) ClaimKeyPackage(ctx context.Context, owner wire.ID) (*wire.KeyPackageClaimed, error) {
	return expect[*wire.KeyPackageClaimed](c.do(ctx, &wire.KeyPackageClaim{Owner: owner}, noRetry))
}

// ClaimKeyPackages claims one key package per entry of owners in one
// request (wire.KeyPackageClaimBatch): the answer has one item per entry,
// in order, not found where that owner had none left.
func (c *Client) ClaimKeyPackages(ctx context.Context, owners []wire.ID) ([]wire.ClaimedItem, error) {
	res, err := expect[*wire.KeyPackageClaimedBatch](c.do(ctx, &wire.KeyPackageClaimBatch{Owners: owners}, noRetry))
	if err != nil {
		return nil, err
	}
	if len(res.Items) != len(owners) {
		return nil, fmt.Errorf("relayclient: %d key packages claimed for %d entries", len(res.Items), len(owners))
	}
	return res.Items, nil
}

// WelcomeNotice tells the relay that each of welcomes, Welcomes this key
// sent, adds the keys in to (wire.WelcomeNotice). Keeping a notice twice
// keeps it once, so it is resent after a reconnect.
func (c *Client) WelcomeNotice(ctx context.Context, welcomes []wire.WelcomeRef, to []wire.ID) error {
	_, err := expect[*wire.OK](c.do(ctx, &wire.WelcomeNotice{Welcomes: welcomes, To: to}, retryOnReconnect))
	return err
}

// Welcomes returns the Welcome notices the relay keeps for this key.
func (c *Client) Welcomes(ctx context.Context) ([]wire.WelcomeRef, error) {
	w, err := expect[*wire.Welcomes](c.do(ctx, &wire.WelcomesGet{}, retryOnReconnect))
	if err != nil {
		return nil, err
	}
	return w.Items, nil
}

// WelcomesDone clears Welcome notices of this key (at most
// wire.MaxWelcomes).
func (c *Client) WelcomesDone(ctx context.Context, items []wire.WelcomeRef) error {
	_, err := expect[*wire.OK](c.do(ctx, &wire.WelcomesDone{Items: items}, retryOnReconnect))
	return err
}

// RecoveryDirPut names, for each item, the recovery.wrap at its seq as the
// current entry of its owner's directory slot of its group, all or none
// (wire.RecoveryDirPut). Putting the same entry again changes nothing, so
// it is resent after a reconnect.
func (c *Client) RecoveryDirPut(ctx context.Context, items []wire.DirPut) error {
	_, err := expect[*wire.OK](c.do(ctx, &wire.RecoveryDirPut{Items: items}, retryOnReconnect))
	return err
}

// RecoveryDir returns owner's recovery directory slots.
func (c *Client) RecoveryDir(ctx context.Context, owner wire.ID) (*wire.RecoveryDir, error) {
	return expect[*wire.RecoveryDir](c.do(ctx, &wire.RecoveryDirGet{Owner: owner}, retryOnReconnect))
}

// RecoveryDirDrop sends a signed drop of a recovery directory's slots; run
// again it drops nothing more.
func (c *Client) RecoveryDirDrop(ctx context.Context, d wire.RecoveryDirDrop) (*wire.RecoveryDirDropped, error) {
	return expect[*wire.RecoveryDirDropped](c.do(ctx, &d, retryOnReconnect))
}

// DropBefore sends a signed drop_before instruction.
func (c *Client) DropBefore(ctx context.Context, d wire.DropBefore) (*wire.Dropped, error) {
	return expect[*wire.Dropped](c.do(ctx, &wire.DropBeforeRequest{Drop: d}, noRetry))
}

// DeleteWraps sends a signed instruction to delete a group's recovery wraps
// by tag (spec/lifecycle.md "Removing a person", step 4).
func (c *Client) DeleteWraps(ctx context.Context, d wire.WrapsDelete) (*wire.WrapsDeleted, error) {
	return expect[*wire.WrapsDeleted](c.do(ctx, &d, noRetry))
}

// DeleteWrapsBatch sends several groups' signed wrap deletions in one
// request; the relay executes them in one transaction, all or none.
func (c *Client) DeleteWrapsBatch(ctx context.Context, items []wire.WrapsDelete) ([]wire.WrapsDeleted, error) {
	res, err := expect[*wire.WrapsDeletedBatch](c.do(ctx, &wire.WrapsDeleteBatch{Items: items}, noRetry))
	if err != nil {
		return nil, err
	}
	if len(res.Items) != len(items) {
		return nil, fmt.Errorf("relayclient: %d answers to %d wrap deletions", len(res.Items), len(items))
	}
	return res.Items, nil
}

// Stats returns the workspace's byte counter, budget and retention warning.
func (c *Client) Stats(ctx context.Context) (*wire.Stats, error) {
	return expect[*wire.Stats](c.do(ctx, &wire.StatsRequest{}, retryOnReconnect))
}
