package store

import (
	"context"
	"errors"
	"fmt"

	"weald/backend/wire"
)

// Why UseProvisionToken refused a token (docs/protocol/wire.md
// "Provisioning"); the relay service turns them into wire codes.
var (
	ErrTokenExpired = errors.New("store: provisioning token expired")
	ErrTokenUsedUp  = errors.New("store: provisioning token used up")
)

// CreateProvisionToken stores the hash of a new provisioning token good for
// uses provisions until expiresAt (unix seconds; 0 = never).
func (t *sqlTx) CreateProvisionToken(ctx context.Context, hash wire.ID, uses, expiresAt, now int64) error {
	res, err := t.exec(ctx, `INSERT INTO provision_tokens (hash, uses_left, expires_at, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING`,
		b(hash), uses, expiresAt, now)
	if err != nil {
		return fmt.Errorf("create provisioning token: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("create provisioning token: %w", ErrExists)
	}
	return nil
}

// UseProvisionToken takes one use of the token with this hash, in one
// statement, so two provisions racing for its last use cannot both have
// it. It returns ErrNotFound, ErrTokenExpired or ErrTokenUsedUp when the
// token cannot be used, and then changes nothing.
func (t *sqlTx) UseProvisionToken(ctx context.Context, hash wire.ID, now int64) error {
	res, err := t.exec(ctx, `UPDATE provision_tokens SET uses_left = uses_left - 1 WHERE hash = ? AND uses_left > 0 AND (expires_at = 0 OR expires_at > ?)`,
		b(hash), now)
	if err != nil {
		return fmt.Errorf("use provisioning token: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	var left, expires int64
	err = t.row(ctx, `SELECT uses_left, expires_at FROM provision_tokens WHERE hash = ?`, b(hash)).Scan(&left, &expires)
	switch {
	case err != nil:
		return notFound(err, "provisioning token")
	case expires != 0 && expires <= now:
		return ErrTokenExpired
	default:
		return ErrTokenUsedUp
	}
}
