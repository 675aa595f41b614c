package relay

import (
	"testing"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// A link holder's grant carries one key (issue 11 finding 5): the first
// device that authenticates with a grant is the only one it carries; a
// second device with the same grant is refused, the first reconnects, and a
// key carried by one grant cannot switch to another.
func TestGrantCarriesOneKey(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		s2 := f.newSet(2, devices("alice", "bob"), "agent", "recovery", "invite-1", "invite-2")
		wire.SignAccessSet(&s2, key("alice"))
		if _, err := f.svc.Publish(f.ctx, f.ws, s2); err != nil {
			t.Fatal(err)
		}
		auth := func(device, grant, nonce string) error {
			n := id(nonce)
			_, err := f.svc.Authenticate(f.ctx, bind(f.svc, f.ws, n), wire.SignGrantChallenge(key(device), grantKey(grant), bind(f.svc, f.ws, n)))
			return err
		}
		if err := auth("joiner", "invite-1", "n1"); err != nil {
			t.Fatalf("first key: %v", err)
		}
		wantCode(t, auth("second", "invite-1", "n2"), wire.CodeAuthGrantUsed)
		if err := auth("joiner", "invite-1", "n3"); err != nil {
			t.Fatalf("the carried key reconnects: %v", err)
		}
		wantCode(t, auth("joiner", "invite-2", "n4"), wire.CodeAuthUnknownKey)
		if ok, err := f.svc.Allowed(f.ctx, f.ws, wire.PrincipalGrant, wire.KeyID(pub(key("second")))); err != nil || ok {
			t.Fatalf("the refused key is allowed: %v %v", ok, err)
		}
	})
}

// A network observer (or a TLS-terminating proxy, or the relay's own logs)
// captures a grant AUTH (issue 11 finding 3). Replayed on another connection
// it answers the wrong nonce; its grant signature cannot carry another
// device's key. (That nothing it saw derives the redemption proof key is
// engine.TestCapturedGrantAuthCannotRedeem.)
func TestCapturedGrantAuthIsRefused(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		s2 := f.newSet(2, devices("alice", "bob"), "agent", "recovery", "invite-1")
		wire.SignAccessSet(&s2, key("alice"))
		if _, err := f.svc.Publish(f.ctx, f.ws, s2); err != nil {
			t.Fatal(err)
		}
		captured := wire.SignGrantChallenge(key("joiner"), grantKey("invite-1"), bind(f.svc, f.ws, id("victim's nonce")))
		// Replayed on a new connection, with its own nonce.
		wantCode(t, errOf(f.svc.Authenticate(f.ctx, bind(f.svc, f.ws, id("attacker's nonce")), captured)), wire.CodeAuthBadSignature)
		// The attacker's own device key with the captured grant signature.
		n := id("attacker's nonce")
		mine := wire.SignChallenge(key("thief"), wire.PrincipalGrant, bind(f.svc, f.ws, n))
		mine.Grant, mine.GrantSignature = captured.Grant, captured.GrantSignature
		wantCode(t, errOf(f.svc.Authenticate(f.ctx, bind(f.svc, f.ws, n), mine)), wire.CodeAuthBadSignature)
		// A grant key with a torsion component (or of small order) is refused
		// before any signature check.
		small := wire.SignChallenge(key("thief"), wire.PrincipalGrant, bind(f.svc, f.ws, n))
		small.Grant, small.GrantSignature = make([]byte, 32), make([]byte, 64)
		small.Grant[0] = 1 // the identity point
		wantCode(t, errOf(f.svc.Authenticate(f.ctx, bind(f.svc, f.ws, n), small)), wire.CodeAuthBadSignature)
		// The victim's genuine answer to its own nonce still works.
		if _, err := f.svc.Authenticate(f.ctx, bind(f.svc, f.ws, id("victim's nonce")), captured); err != nil {
			t.Fatal(err)
		}
	})
}
