package relayclient

import (
	"errors"
	"fmt"

	"weald/backend/wire"
)

// QuotaError is quota/log_budget_exhausted: the workspace's envelope log is
// at its byte budget. It is never retried: waiting does not clear it;
// compaction or a larger budget does (spec/lifecycle.md "The workspace byte
// budget").
type QuotaError struct {
	LimitBytes uint64
	Err        *wire.Error
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("relay: workspace log budget of %d bytes is exhausted: %s", e.LimitBytes, e.Err.Sentence)
}

// Unwrap gives the protocol error (errors.Is(err, &wire.Error{Code: ...})).
func (e *QuotaError) Unwrap() error { return e.Err }

// ErrDisconnected is returned for a request whose connection ended before
// its answer arrived. For a Send the batch may or may not have been
// accepted; resending the same envelopes is safe (the relay answers
// chain/replay for an envelope it already holds).
var ErrDisconnected = errors.New("relayclient: connection lost before the answer")

// ErrClosed is returned after Close.
var ErrClosed = errors.New("relayclient: client closed")

// PermanentError wraps an error that stopped the client from reconnecting
// (the relay refused its credentials: auth/revoked, auth/unknown_key, ...).
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return "relayclient: stopped: " + e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// protocolError converts an ErrorBody into the error a caller sees.
func protocolError(e *wire.Error) error {
	if e.Code == wire.CodeLogBudgetExhausted {
		limit, _ := e.UintField("limit_bytes")
		return &QuotaError{LimitBytes: limit, Err: e}
	}
	return e
}

// permanentCode reports whether a refusal at connect (or a kick) means
// reconnecting cannot help.
func permanentCode(c wire.Code) bool {
	switch c {
	case wire.CodeAuthRevoked, wire.CodeAuthUnknownKey, wire.CodeAuthBadSignature,
		wire.CodeBadVersion, wire.CodeWorkspaceUnknown, wire.CodeNoAccessSet,
		wire.CodeAuthWrongRelay, CodeRelayChanged:
		return true
	}
	return false
}
