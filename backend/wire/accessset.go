package wire

import (
	"crypto/ed25519"
	"fmt"

	"weald/backend/internal/codec"
)

// DeviceKey is a device entry of an access set:
// struct { opaque pub[32]; opaque user[32]; bool admin; }.
// The relay counts distinct admin users for retention thresholds and accepts
// a later access set only when signed by an admin device of the current one.
type DeviceKey struct {
	Pub   []byte
	User  ID
	Admin bool
}

// AccessSet is the relay's view of who may connect to a workspace
// (design/gaps.md "Relay protocol", spec/lifecycle.md "Removing a person"
// step 5):
//
//	struct {
//	    opaque workspace[32];
//	    uint64 version;           // 1 for the genesis set, then +1 each publication
//	    DeviceKey devices<V>;
//	    opaque agents<V>;         // 32-byte Ed25519 public keys, concatenated
//	    opaque recovery<V>;       // 32-byte Ed25519 public keys, concatenated
//	    opaque grants<V>;         // 32-byte invite grant keys (Ed25519 public), concatenated
//	    opaque signer<V>;         // Ed25519 public key: the genesis key (version 1) or an admin device
//	    opaque signature<V>;      // Sign(signer, "access-set", encoding without signature)
//	} AccessSet;
type AccessSet struct {
	Workspace ID
	Version   uint64
	Devices   []DeviceKey
	Agents    [][]byte
	Recovery  [][]byte
	Grants    []ID
	Signer    []byte
	Signature []byte
}

func encodeKeys(w *writer, keys [][]byte) {
	w.Vector(func(w *writer) {
		for _, k := range keys {
			w.Raw(k)
		}
	})
}

func decodeKeys(r *reader, what string) [][]byte {
	b := r.OpaqueCopy()
	if len(b)%ed25519.PublicKeySize != 0 {
		fail(r, "%s: %d bytes is not a list of 32-byte keys", what, len(b))
		return nil
	}
	if len(b)/ed25519.PublicKeySize > maxListItems {
		fail(r, "%s: too many keys", what)
		return nil
	}
	var out [][]byte
	for i := 0; i < len(b); i += ed25519.PublicKeySize {
		out = append(out, b[i:i+ed25519.PublicKeySize:i+ed25519.PublicKeySize])
	}
	return out
}

func (a *AccessSet) encodeTBS(w *writer) {
	w.Array32(a.Workspace)
	w.U64(a.Version)
	w.Vector(func(w *writer) {
		for _, d := range a.Devices {
			w.Opaque(d.Pub)
			w.Array32(d.User)
			w.Bool(d.Admin)
		}
	})
	encodeKeys(w, a.Agents)
	encodeKeys(w, a.Recovery)
	w.Vector(func(w *writer) {
		for _, g := range a.Grants {
			w.Array32(g)
		}
	})
	w.Opaque(a.Signer)
}

// TBS returns the bytes the access-set signature covers.
func (a *AccessSet) TBS() []byte {
	var w writer
	a.encodeTBS(&w)
	return w.Bytes()
}

func (a *AccessSet) encode(w *writer) {
	a.encodeTBS(w)
	w.Opaque(a.Signature)
}

// Encode returns the canonical encoding of a.
func (a *AccessSet) Encode() ([]byte, error) {
	var w writer
	a.encode(&w)
	return w.Bytes(), w.Err()
}

func decodeAccessSet(r *reader) AccessSet {
	var a AccessSet
	a.Workspace = ID(r.Array32())
	a.Version = r.U64()
	list(r, func(r *reader) {
		d := DeviceKey{Pub: fixed(r, ed25519.PublicKeySize, "device key")}
		d.User = ID(r.Array32())
		d.Admin = r.Bool()
		a.Devices = append(a.Devices, d)
	})
	a.Agents = decodeKeys(r, "agents")
	a.Recovery = decodeKeys(r, "recovery")
	g := r.OpaqueCopy()
	if len(g)%32 != 0 || len(g)/32 > maxListItems {
		fail(r, "grants: %d bytes is not a list of 32-byte keys", len(g))
	} else {
		for i := 0; i < len(g); i += 32 {
			var id ID
			copy(id[:], g[i:i+32])
			a.Grants = append(a.Grants, id)
		}
	}
	a.Signer = fixed(r, ed25519.PublicKeySize, "signer")
	a.Signature = fixed(r, ed25519.SignatureSize, "signature")
	return a
}

// DecodeAccessSet decodes an access set; it does not verify it.
func DecodeAccessSet(b []byte) (AccessSet, error) {
	r := codec.NewReader(b)
	a := decodeAccessSet(r)
	if err := done(r); err != nil {
		return AccessSet{}, fmt.Errorf("decode access set: %w", err)
	}
	return a, nil
}

// SignAccessSet sets a.Signer to the public half of priv and signs a.
func SignAccessSet(a *AccessSet, priv ed25519.PrivateKey) {
	a.Signer = append([]byte(nil), priv.Public().(ed25519.PublicKey)...)
	a.Signature = Sign(priv, LabelAccessSet, a.TBS())
}

// VerifySignature checks a's signature under a.Signer. Whether a.Signer may
// sign this version is the relay's decision.
func (a *AccessSet) VerifySignature() error {
	return Verify(a.Signer, LabelAccessSet, a.TBS(), a.Signature)
}

// PrincipalKind says which list of an access set a key is in.
type PrincipalKind uint8

// Principal kinds, also the auth method tags of [Auth].
const (
	PrincipalNone     PrincipalKind = 0
	PrincipalDevice   PrincipalKind = 1
	PrincipalAgent    PrincipalKind = 2
	PrincipalRecovery PrincipalKind = 3
	PrincipalGrant    PrincipalKind = 4
)

func (k PrincipalKind) String() string {
	switch k {
	case PrincipalDevice:
		return "device"
	case PrincipalAgent:
		return "agent"
	case PrincipalRecovery:
		return "recovery"
	case PrincipalGrant:
		return "grant"
	}
	return "none"
}

// Lookup returns the public key and kind of the principal whose [KeyID] is id,
// or PrincipalNone.
func (a *AccessSet) Lookup(id ID) ([]byte, PrincipalKind) {
	for _, d := range a.Devices {
		if KeyID(d.Pub) == id {
			return d.Pub, PrincipalDevice
		}
	}
	for _, k := range a.Agents {
		if KeyID(k) == id {
			return k, PrincipalAgent
		}
	}
	for _, k := range a.Recovery {
		if KeyID(k) == id {
			return k, PrincipalRecovery
		}
	}
	return nil, PrincipalNone
}

// Device returns the device entry for pub, if present.
func (a *AccessSet) Device(pub []byte) (DeviceKey, bool) {
	id := KeyID(pub)
	for _, d := range a.Devices {
		if KeyID(d.Pub) == id {
			return d, true
		}
	}
	return DeviceKey{}, false
}

// KeyIDs returns the ids of every key in a (devices, agents, recovery).
func (a *AccessSet) KeyIDs() map[ID]PrincipalKind {
	out := make(map[ID]PrincipalKind, len(a.Devices)+len(a.Agents)+len(a.Recovery))
	for _, d := range a.Devices {
		out[KeyID(d.Pub)] = PrincipalDevice
	}
	for _, k := range a.Agents {
		out[KeyID(k)] = PrincipalAgent
	}
	for _, k := range a.Recovery {
		out[KeyID(k)] = PrincipalRecovery
	}
	return out
}

// HasGrant reports whether the set carries grant hash h.
func (a *AccessSet) HasGrant(h ID) bool {
	for _, g := range a.Grants {
		if g == h {
			return true
		}
	}
	return false
}

// AdminUsers returns the distinct users that have an admin device in a.
func (a *AccessSet) AdminUsers() map[ID]bool {
	out := map[ID]bool{}
	for _, d := range a.Devices {
		if d.Admin {
			out[d.User] = true
		}
	}
	return out
}
