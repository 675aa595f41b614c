package engine

import (
	"context"
	"errors"
	"time"

	"weald/backend/errcode"
	"weald/backend/relayclient"
	"weald/backend/wire"
)

// SelfProvision returns an Options.Provision that asks the relay itself to
// record the workspace (PROVISION, docs/protocol/wire.md "Provisioning";
// issue 15): with token, from a relay link (`weald-relay token create`),
// for a relay in token mode; with none, for a relay in open mode. A relay
// that provisions only by its operator (provision/operator_only) with no
// token given leaves the workspace to its operator, as before: the setup
// then stops with ErrNotProvisioned. A relay's refusal, and any failure
// while a token was given (the token is not kept: a later retry could not
// use it), make ProvisionFailed true: the caller leaves nothing behind.
func SelfProvision(token []byte) func(ctx context.Context, relayURL string, ws wire.ID, genesisPub []byte) error {
	return func(ctx context.Context, relayURL string, ws wire.ID, genesisPub []byte) error {
		var gen wire.ID
		copy(gen[:], genesisPub)
		err := relayclient.Provision(ctx, relayURL, ws, gen, token)
		for try := 0; try < 3 && isRate(err); try++ {
			// A few provisions from one address in a row (a team behind
			// one address) are spaced out, not failed.
			if werr := waitRetry(ctx, err); werr != nil {
				return werr
			}
			err = relayclient.Provision(ctx, relayURL, ws, gen, token)
		}
		c, _ := errcode.Of(err)
		switch {
		case err == nil || c == wire.CodeWorkspaceExists:
			return err
		case len(token) == 0 && c == wire.CodeProvisionOperatorOnly:
			return nil
		case len(token) > 0 || c.Area() == "provision":
			return &provisionError{err}
		}
		return err
	}
}

func isRate(err error) bool {
	var we *wire.Error
	return errors.As(err, &we) && we.Code == wire.CodeLimitRate
}

// waitRetry waits what a limit/rate refusal asks (at most 10 s).
func waitRetry(ctx context.Context, err error) error {
	var we *wire.Error
	errors.As(err, &we)
	ms, _ := we.UintField("retry_after_ms")
	d := min(time.Duration(ms)*time.Millisecond, 10*time.Second)
	t := time.NewTimer(max(d, 100*time.Millisecond))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// provisionError is a provisioning the relay refused (or that could not
// use its token).
type provisionError struct{ err error }

func (e *provisionError) Error() string { return e.err.Error() }
func (e *provisionError) Unwrap() error { return e.err }

// ProvisionFailed reports whether a CreateWorkspace error means the
// workspace never reached the relay and will not: the relay refused to
// provision it, or a relay link's token could not be used (wrong address,
// nothing answering). Such a workspace holds nothing worth keeping.
func ProvisionFailed(err error) bool {
	var pe *provisionError
	return errors.As(err, &pe)
}
