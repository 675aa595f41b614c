package main

import (
	"errors"
	"fmt"
	"testing"

	"weald/backend/engine"
	"weald/backend/errcode"
	"weald/backend/groups"
	"weald/backend/roster"
	"weald/backend/wire"
)

func TestExitCodes(t *testing.T) {
	cases := []struct {
		err  error
		code errcode.Code
		exit int
	}{
		{engine.ErrNotProvisioned, "workspace/not_provisioned", exitPending},
		{fmt.Errorf("send: %w", engine.ErrNoChannel), "channel/unknown", exitNotFound},
		{wire.Errorf(wire.CodeAuthRevoked, "gone"), "auth/revoked", exitRefused},
		{fmt.Errorf("x: %w", groups.ErrBadLink), "invite/bad_link", exitRefused},
		// The app reads the same code (errcode.Of): not app/failed.
		{fmt.Errorf("redeem: %w", &roster.Error{Err: roster.ErrInviteExpired}), "roster/invite_expired", exitRefused},
		{usagef("bad"), "internal/error", exitUsage},
		{&attentionError{2}, "internal/error", exitAction},
		{errors.New("disk on fire"), "internal/error", exitFailed},
	}
	for _, c := range cases {
		if got := errCode(c.err); got != c.code {
			t.Errorf("%v: code %q, want %q", c.err, got, c.code)
		}
		if got := exitFor(c.err); got != c.exit {
			t.Errorf("%v: exit %d, want %d", c.err, got, c.exit)
		}
	}
}
