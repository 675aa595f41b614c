package relay

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// ProvisionMode says who may provision a workspace over the wire
// (docs/protocol/wire.md "Provisioning"; issue 15). The operator can
// always provision with weald-relay provision (ProvisionWorkspace).
type ProvisionMode string

const (
	// ProvisionOperator refuses every PROVISION: only the operator
	// provisions (the default).
	ProvisionOperator ProvisionMode = "operator"
	// ProvisionToken accepts a PROVISION carrying a live token the
	// operator created (CreateProvisionToken); each provision takes a use.
	ProvisionToken ProvisionMode = "token"
	// ProvisionOpen accepts every PROVISION: for a private deployment
	// (a relay on a LAN, or one embedded in the app).
	ProvisionOpen ProvisionMode = "open"
)

// ParseProvisionMode reads a mode by name; "" is ProvisionOperator.
func ParseProvisionMode(s string) (ProvisionMode, error) {
	switch m := ProvisionMode(s); m {
	case "":
		return ProvisionOperator, nil
	case ProvisionOperator, ProvisionToken, ProvisionOpen:
		return m, nil
	}
	return "", fmt.Errorf("%q is not a provisioning mode (operator, token or open)", s)
}

// TokenSize is the length of a provisioning token in bytes.
const TokenSize = 32

// CreateProvisionToken makes a provisioning token good for uses
// provisions (at least 1) and, when ttl > 0, until ttl from now. Only its
// SHA-256 is stored; the token itself is returned once.
func (s *Service) CreateProvisionToken(ctx context.Context, uses int64, ttl time.Duration) ([]byte, time.Time, error) {
	if uses < 1 {
		return nil, time.Time{}, wire.Errorf(wire.CodeMalformed, "A provisioning token needs at least one use.")
	}
	tok := make([]byte, TokenSize)
	if _, err := rand.Read(tok); err != nil {
		return nil, time.Time{}, err
	}
	now := s.now()
	var expires time.Time
	var expiresUnix int64
	if ttl > 0 {
		expires = now.Add(ttl)
		expiresUnix = expires.Unix()
	}
	err := s.st.Update(ctx, func(tx store.Tx) error {
		return tx.CreateProvisionToken(ctx, sha256.Sum256(tok), uses, expiresUnix, now.Unix())
	})
	if err != nil {
		return nil, time.Time{}, err
	}
	return tok, expires, nil
}

// Provision records a new workspace and its genesis key for a client
// (PROVISION), as the mode allows: in token mode it takes one use of the
// token in the same transaction, so a refused or failed provision uses
// nothing. A workspace the relay already holds is workspace/exists and
// uses nothing either (a client retrying after a lost answer treats it as
// done, as with ProvisionWorkspace).
func (s *Service) Provision(ctx context.Context, ws wire.ID, genesisKey, token []byte) error {
	switch s.provisioning {
	case ProvisionOpen:
	case ProvisionToken:
		if len(token) == 0 {
			return wire.Errorf(wire.CodeProvisionTokenMissing, "This relay creates workspaces only with a provisioning token; ask its operator for a relay link.")
		}
	default:
		return wire.Errorf(wire.CodeProvisionOperatorOnly, "This relay's operator creates its workspaces; ask them for a relay link or to run weald-relay provision.")
	}
	if !wire.PrimeOrderKey(genesisKey) {
		return wire.Errorf(wire.CodeMalformed, "A genesis key is a 32-byte canonical Ed25519 public key of the prime-order subgroup.")
	}
	return s.st.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.Workspace(ctx, ws); err == nil {
			return wire.Errorf(wire.CodeWorkspaceExists, "This relay already holds a workspace with that id.", wire.B("workspace", ws[:]))
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if s.provisioning == ProvisionToken {
			if err := useToken(ctx, tx, token, s.unix()); err != nil {
				return err
			}
		}
		err := tx.CreateWorkspace(ctx, ws, genesisKey, s.unix())
		if errors.Is(err, store.ErrExists) {
			return wire.Errorf(wire.CodeWorkspaceExists, "This relay already holds a workspace with that id.", wire.B("workspace", ws[:]))
		}
		return err
	})
}

func useToken(ctx context.Context, tx store.Tx, token []byte, now int64) error {
	err := tx.UseProvisionToken(ctx, sha256.Sum256(token), now)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return wire.Errorf(wire.CodeProvisionTokenUnknown, "This relay does not know that provisioning token; check the relay link, or ask its operator for a new one.")
	case errors.Is(err, store.ErrTokenExpired):
		return wire.Errorf(wire.CodeProvisionTokenExpired, "That provisioning token has expired; ask the relay's operator for a new relay link.")
	case errors.Is(err, store.ErrTokenUsedUp):
		return wire.Errorf(wire.CodeProvisionTokenUsedUp, "That provisioning token has been used as many times as it allows; ask the relay's operator for a new relay link.")
	}
	return err
}
