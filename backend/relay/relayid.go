package relay

import (
	"context"
	"crypto/rand"
	"sync"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// relayID holds the relay's id once read: 32 random bytes chosen once and
// kept in the database (shared by every relay process on it), sent in
// every CHALLENGE and covered by every AUTH signature, so an AUTH made for
// one relay answers no other (docs/protocol/wire.md "Handshake").
type relayID struct {
	mu sync.Mutex
	id wire.ID
	ok bool
}

// RelayID returns this relay's id, choosing and storing it on first use.
func (s *Service) RelayID(ctx context.Context) (wire.ID, error) {
	s.relayID.mu.Lock()
	defer s.relayID.mu.Unlock()
	if s.relayID.ok {
		return s.relayID.id, nil
	}
	var fresh wire.ID
	if _, err := rand.Read(fresh[:]); err != nil {
		return wire.ID{}, err
	}
	var id wire.ID
	err := s.st.Update(ctx, func(tx store.Tx) error {
		var err error
		id, err = tx.RelayID(ctx, fresh)
		return err
	})
	if err != nil {
		return wire.ID{}, err
	}
	s.relayID.id, s.relayID.ok = id, true
	return id, nil
}
