package relay

import (
	"crypto/ed25519"
	"testing"

	"filippo.io/edwards25519"

	"weald/backend/internal/ed25519batch"
	"weald/backend/relay/store"
	"weald/backend/wire"
)

// torsioned re-signs e (its author's key k) with the j-th small-order
// point added to R.
func torsioned(e wire.Envelope, k ed25519.PrivateKey, j int) wire.Envelope {
	e.Signature = ed25519batch.SignWithTorsion(k, wire.SignContent(wire.LabelEnvelope, e.TBS()), j)
	return e
}

// A member signs an envelope with a small-order component in R, which every
// client (crypto/ed25519.Verify) refuses. The relay refuses it the same way
// alone (prepared key), last in a batch of the author's valid envelopes,
// and in a batch of several authors. On main at 0478711 the batch path
// accepted it (the cofactored equation) and stored what clients then drop.
func TestTorsionEnvelopeIsRefusedAloneAndInABatch(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		g := id("group")
		f.mustSend("alice", f.next("alice", g, wire.KindContent, []byte("first")))
		for j := 1; j < 8; j++ {
			for _, n := range []int{0, 5, 40} {
				saved := f.saveChains()
				var batch []wire.Envelope
				for i := 0; i < n; i++ {
					batch = append(batch, f.next("alice", g, wire.KindContent, []byte("valid")))
					if i%2 == 1 {
						batch = append(batch, f.next("bob", g, wire.KindContent, []byte("valid")))
					}
				}
				bad := torsioned(f.next("alice", g, wire.KindContent, []byte("torsion")), key("alice"), j)
				if wire.VerifyEnvelope(&bad, pub(key("alice"))) == nil {
					t.Fatal("the client check accepted a torsion signature")
				}
				batch = append(batch, bad)
				before := f.state()
				we := wantCode(t, errOf(f.send("alice", batch...)), wire.CodeAuthBadSignature)
				if idx, _ := we.UintField("index"); int(idx) != len(batch)-1 {
					t.Fatalf("j=%d n=%d: refused index %d, want %d", j, n, idx, len(batch)-1)
				}
				if f.state() != before {
					t.Fatalf("j=%d n=%d: a refused send changed the state", j, n)
				}
				f.restoreChains(saved)
			}
		}
	})
}

// Keys with a small-order component, small-order keys and non-canonical
// encodings are refused where keys enter the relay: an access set (device,
// agent, recovery key), a genesis key, a grant AUTH.
func TestKeysOutsideThePrimeOrderSubgroupAreRefused(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		good := pub(key("carol"))
		A, _ := new(edwards25519.Point).SetBytes(good)
		mixed := new(edwards25519.Point).Add(A, smallOrderPoint(t)).Bytes()
		small := smallOrderPoint(t).Bytes()
		for name, bad := range map[string][]byte{"mixed order": mixed, "order 8": small, "identity": edwards25519.NewIdentityPoint().Bytes()} {
			for _, where := range []string{"device", "agent", "recovery"} {
				s2 := f.newSet(2, devices("alice", "bob"), "agent", "recovery")
				switch where {
				case "device":
					s2.Devices = append(s2.Devices, wire.DeviceKey{Pub: bad, User: id("u3")})
				case "agent":
					s2.Agents = append(s2.Agents, bad)
				case "recovery":
					s2.Recovery = append(s2.Recovery, bad)
				}
				wire.SignAccessSet(&s2, key("alice"))
				if _, err := f.svc.Publish(f.ctx, f.ws, s2); err == nil {
					t.Fatalf("%s key as %s accepted in an access set", name, where)
				} else {
					wantCode(t, err, wire.CodeBadObject)
				}
			}
			wantCode(t, f.svc.ProvisionWorkspace(f.ctx, id("ws "+name), bad), wire.CodeMalformed)
			grant := &wire.Auth{Method: wire.PrincipalGrant, Key: bad, Signature: make([]byte, 64), Grant: pub(key("grant")), GrantSignature: make([]byte, 64)}
			wantCode(t, errOf(f.svc.Authenticate(f.ctx, bind(f.svc, f.ws, id("nonce")), grant)), wire.CodeAuthBadSignature)
		}
	})
}

func smallOrderPoint(t *testing.T) *edwards25519.Point {
	t.Helper()
	// R of a j = 1 torsion signature minus R of the j = 0 one with the same
	// nonce is the small-order point itself.
	k := key("torsion source")
	r0, _ := new(edwards25519.Point).SetBytes(ed25519batch.SignWithTorsion(k, []byte("m"), 0)[:32])
	r1, err := new(edwards25519.Point).SetBytes(ed25519batch.SignWithTorsion(k, []byte("m"), 1)[:32])
	if err != nil {
		t.Fatal(err)
	}
	return new(edwards25519.Point).Subtract(r1, r0)
}
