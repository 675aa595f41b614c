package groups

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"strings"

	"weald/backend/identity"
	"weald/backend/internal/codec"
	"weald/backend/mls/suite"
	"weald/backend/relayclient"
	"weald/backend/roster"
)

// Link is the content of an invite link (docs/protocol/invites.md "Link").
type Link struct {
	Relay      string // the relay's address, normalized (relayclient.NormalizeAddress)
	Workspace  identity.WorkspaceID
	Invite     roster.InviteID
	Secret     identity.InviteSecret
	UpdatePriv []byte // X25519 private key the invite bundle is sealed to
	// Pair marks a pairing link (weald://pair?…, docs/protocol/devices.md):
	// the same fields, for a pair-device record that admits a new device
	// of an existing user.
	Pair bool
}

// String returns the link text.
func (l *Link) String() string {
	q := url.Values{}
	q.Set("v", "1")
	q.Set("relay", l.Relay)
	q.Set("ws", hex.EncodeToString(l.Workspace[:]))
	q.Set("id", hex.EncodeToString(l.Invite[:]))
	q.Set("s", base64.RawURLEncoding.EncodeToString(l.Secret.Bytes()))
	q.Set("k", base64.RawURLEncoding.EncodeToString(l.UpdatePriv))
	if l.Pair {
		return "weald://pair?" + q.Encode()
	}
	return "weald://invite?" + q.Encode()
}

func hex32(s string) ([32]byte, bool) {
	var out [32]byte
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		return out, false
	}
	copy(out[:], b)
	return out, true
}

// ParseLink parses an invite link or a pairing link (Pair set).
func ParseLink(s string) (*Link, error) {
	bad := func(why string) error { return fmt.Errorf("%w: %s", ErrBadLink, why) }
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Scheme != "weald" || (u.Host != "invite" && u.Host != "pair") {
		return nil, bad("it does not start with weald://invite? or weald://pair?")
	}
	q := u.Query()
	if q.Get("v") != "1" {
		return nil, bad("unknown link version")
	}
	relay, err := relayclient.NormalizeAddress(q.Get("relay"))
	if err != nil {
		return nil, bad("the relay address is not one Weald can connect to")
	}
	l := &Link{Relay: relay, Pair: u.Host == "pair"}
	ws, ok := hex32(q.Get("ws"))
	if !ok {
		return nil, bad("the workspace id is not 64 hex digits")
	}
	l.Workspace = identity.WorkspaceID(ws)
	inv, ok := hex32(q.Get("id"))
	if !ok {
		return nil, bad("the invite id is not 64 hex digits")
	}
	l.Invite = roster.InviteID(inv)
	sec, err := base64.RawURLEncoding.DecodeString(q.Get("s"))
	if err != nil {
		return nil, bad("the invite secret is not base64url")
	}
	if l.Secret, err = identity.InviteSecretFromBytes(sec); err != nil {
		return nil, bad("the invite secret has the wrong length")
	}
	k, err := base64.RawURLEncoding.DecodeString(q.Get("k"))
	if err != nil || len(k) != 32 {
		return nil, bad("the bundle key is not 32 bytes of base64url")
	}
	l.UpdatePriv = k
	return l, nil
}

// InviteBundle is the ct of an invite.bundle envelope in the root log.
type InviteBundle struct {
	Invite     roster.InviteID
	RootEpoch  uint64
	KEMOutput  []byte
	Ciphertext []byte
}

// Encode returns the canonical encoding.
func (b *InviteBundle) Encode() []byte {
	var w codec.Writer
	w.U8(1)
	w.Raw(b.Invite[:])
	w.U64(b.RootEpoch)
	w.Opaque(b.KEMOutput)
	w.Opaque(b.Ciphertext)
	return w.Bytes()
}

// DecodeInviteBundle parses an InviteBundle.
func DecodeInviteBundle(data []byte) (InviteBundle, error) {
	r := codec.NewReader(data)
	var b InviteBundle
	v := r.U8()
	b.Invite = roster.InviteID(r.Array32())
	b.RootEpoch = r.U64()
	b.KEMOutput = r.OpaqueMax(256)
	b.Ciphertext = r.OpaqueMax(maxBlob)
	if err := r.Done(); err != nil {
		return InviteBundle{}, fmt.Errorf("%w: invite bundle: %v", ErrDecode, err)
	}
	if v != 1 {
		return InviteBundle{}, fmt.Errorf("%w: invite bundle version %d", ErrVersion, v)
	}
	return b, nil
}

// BundlePlain is what an invite bundle carries.
type BundlePlain struct {
	GroupInfo       []byte // root GroupInfo MLSMessage with external_pub and ratchet_tree
	Epoch           uint64
	History         []HistoryKey
	EnrolmentSecret []byte
}

func (p *BundlePlain) encode() []byte {
	var w codec.Writer
	w.Opaque(p.GroupInfo)
	w.U64(p.Epoch)
	encodeKeys(&w, p.History)
	w.Opaque(p.EnrolmentSecret)
	return w.Bytes()
}

func decodeBundlePlain(data []byte) (BundlePlain, error) {
	r := codec.NewReader(data)
	p := BundlePlain{GroupInfo: r.OpaqueMax(maxBlob), Epoch: r.U64()}
	p.History = decodeKeys(r)
	p.EnrolmentSecret = r.OpaqueMax(64)
	if err := r.Done(); err != nil {
		return BundlePlain{}, fmt.Errorf("%w: invite bundle contents: %v", ErrDecode, err)
	}
	return p, nil
}

const labelInviteBundle = "weald invite.bundle"

func inviteContext(ws identity.WorkspaceID, inv roster.InviteID, epoch uint64) []byte {
	var w codec.Writer
	w.Raw(ws[:])
	w.Raw(inv[:])
	w.U64(epoch)
	return w.Bytes()
}

func suite1() *suite.Suite {
	s, err := suite.ByID(1)
	if err != nil {
		panic("groups: MLS cipher suite 1 is not available: " + err.Error())
	}
	return s
}

// NewUpdateKey draws the X25519 key pair of a new invite.
func NewUpdateKey(rand io.Reader) (priv, pub []byte, err error) {
	kp, err := suite1().GenerateKeyPair(rand)
	if err != nil {
		return nil, nil, err
	}
	return kp.Private, kp.Public, nil
}

// SealInviteBundle seals p to the invite's update_pub.
func SealInviteBundle(rand io.Reader, ws identity.WorkspaceID, inv roster.InviteID, updatePub []byte, p *BundlePlain) (*InviteBundle, error) {
	kem, ct, err := suite1().EncryptWithLabel(rand, updatePub, labelInviteBundle, inviteContext(ws, inv, p.Epoch), p.encode())
	if err != nil {
		return nil, err
	}
	return &InviteBundle{Invite: inv, RootEpoch: p.Epoch, KEMOutput: kem, Ciphertext: ct}, nil
}

// OpenInviteBundle opens b with the link's update key.
func OpenInviteBundle(ws identity.WorkspaceID, updatePriv []byte, b *InviteBundle) (*BundlePlain, error) {
	pt, err := suite1().DecryptWithLabel(updatePriv, labelInviteBundle, inviteContext(ws, b.Invite, b.RootEpoch), b.KEMOutput, b.Ciphertext)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBundle, err)
	}
	p, err := decodeBundlePlain(pt)
	if err != nil {
		return nil, err
	}
	if p.Epoch != b.RootEpoch {
		return nil, fmt.Errorf("%w: epoch inside does not match", ErrBundle)
	}
	return &p, nil
}
