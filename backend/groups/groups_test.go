package groups

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"weald/backend/identity"
	"weald/backend/roster"
)

type seeded struct{ r *rand.ChaCha8 }

func (s seeded) Read(p []byte) (int, error) { return s.r.Read(p) }

func rng(seed byte) seeded { return seeded{rand.NewChaCha8([32]byte{seed})} }

type fixedExporter []byte

func (f fixedExporter) Export(label string, ctx []byte, n int) ([]byte, error) {
	out := append([]byte(label), f...)
	out = append(out, ctx...)
	for len(out) < n {
		out = append(out, 0)
	}
	return out[:n], nil
}

func TestBundleSealOpen(t *testing.T) {
	secret, err := EnrolmentSecret(fixedExporter("epoch-7"))
	if err != nil {
		t.Fatal(err)
	}
	child := [32]byte{1, 2, 3}
	plain := (&GroupInfoPlain{Epoch: 4, GroupInfo: []byte("group info bytes")}).Encode()
	b, err := SealBundle(rng(1), BundleGroupInfo, secret, 7, child, plain)
	if err != nil {
		t.Fatal(err)
	}
	enc := b.Encode()
	d, err := DecodeSealedBundle(enc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := OpenBundle(BundleGroupInfo, secret, child, d)
	if err != nil {
		t.Fatal(err)
	}
	gp, err := DecodeGroupInfoPlain(got)
	if err != nil || gp.Epoch != 4 || string(gp.GroupInfo) != "group info bytes" {
		t.Fatalf("got %+v, %v", gp, err)
	}
	// Another child, another kind, another epoch's secret: no.
	if _, err := OpenBundle(BundleGroupInfo, secret, [32]byte{9}, d); !errors.Is(err, ErrOpen) {
		t.Fatalf("other child: %v", err)
	}
	if _, err := OpenBundle(BundleHistory, secret, child, d); !errors.Is(err, ErrOpen) {
		t.Fatalf("other kind: %v", err)
	}
	other, _ := EnrolmentSecret(fixedExporter("epoch-8"))
	if _, err := OpenBundle(BundleGroupInfo, other, child, d); !errors.Is(err, ErrOpen) {
		t.Fatalf("other epoch: %v", err)
	}
	d.RootEpoch = 8
	if _, err := OpenBundle(BundleGroupInfo, secret, child, d); !errors.Is(err, ErrOpen) {
		t.Fatalf("relabelled epoch: %v", err)
	}
}

func TestHistoryPlain(t *testing.T) {
	k1, _ := NewHistoryKey(rng(2))
	k2, _ := NewHistoryKey(rng(3))
	p := HistoryPlain{Epoch: 3, Keys: []HistoryKey{k1, k2}}
	got, err := DecodeHistoryPlain(p.Encode())
	if err != nil || len(got.Keys) != 2 || got.Keys[1].ID != k2.ID || !bytes.Equal(got.Keys[0].Key, k1.Key) {
		t.Fatalf("%+v %v", got, err)
	}
	bad := p.Encode()
	bad[len(bad)-1] ^= 1 // key no longer matches its id
	if _, err := DecodeHistoryPlain(bad); !errors.Is(err, ErrDecode) {
		t.Fatalf("tampered key: %v", err)
	}
}

func TestContentSealOpen(t *testing.T) {
	k, _ := NewHistoryKey(rng(4))
	g, a := [32]byte{1}, [32]byte{2}
	c, err := SealContent(rng(5), SchemeHistory, k.ID, 0, k.Key, g, a, 3, []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := DecodeContentCT(c.Encode())
	if err != nil || d.KeyID != k.ID {
		t.Fatal(err)
	}
	pt, err := OpenContent(d, k.Key, g, a, 3)
	if err != nil || string(pt) != "hello" {
		t.Fatalf("%q %v", pt, err)
	}
	if _, err := OpenContent(d, k.Key, g, a, 4); !errors.Is(err, ErrOpen) {
		t.Fatalf("replayed at another ctr: %v", err)
	}
	e, err := SealContent(rng(6), SchemeEpoch, [32]byte{}, 9, k.Key, g, a, 1, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	de, err := DecodeContentCT(e.Encode())
	if err != nil || de.Epoch != 9 || de.Scheme != SchemeEpoch {
		t.Fatalf("%+v %v", de, err)
	}
}

func TestLinkRoundTrip(t *testing.T) {
	sec, _ := identity.NewInviteSecret(rng(7))
	priv, _, err := NewUpdateKey(rng(8))
	if err != nil {
		t.Fatal(err)
	}
	l := &Link{Relay: "ws://127.0.0.1:7447/v1/ws", Workspace: identity.WorkspaceID{5}, Invite: roster.InviteID{6},
		Secret: sec, UpdatePriv: priv}
	got, err := ParseLink(l.String())
	if err != nil {
		t.Fatal(err)
	}
	if got.Relay != l.Relay || got.Workspace != l.Workspace || got.Invite != l.Invite || !got.Secret.Equal(sec) ||
		!bytes.Equal(got.UpdatePriv, priv) {
		t.Fatalf("round trip: %+v", got)
	}
	for _, bad := range []string{"", "https://invite?v=1", "weald://invite?v=2", l.String()[:40],
		"weald://invite?v=1&relay=http://x&ws=00"} {
		if _, err := ParseLink(bad); !errors.Is(err, ErrBadLink) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestInviteBundle(t *testing.T) {
	priv, pub, err := NewUpdateKey(rng(9))
	if err != nil {
		t.Fatal(err)
	}
	k, _ := NewHistoryKey(rng(10))
	ws, inv := identity.WorkspaceID{1}, roster.InviteID{2}
	p := &BundlePlain{GroupInfo: []byte("gi"), Epoch: 12, History: []HistoryKey{k}, EnrolmentSecret: bytes.Repeat([]byte{7}, 32)}
	b, err := SealInviteBundle(rng(11), ws, inv, pub, p)
	if err != nil {
		t.Fatal(err)
	}
	d, err := DecodeInviteBundle(b.Encode())
	if err != nil {
		t.Fatal(err)
	}
	got, err := OpenInviteBundle(ws, priv, &d)
	if err != nil || got.Epoch != 12 || string(got.GroupInfo) != "gi" || got.History[0].ID != k.ID {
		t.Fatalf("%+v %v", got, err)
	}
	other, _, _ := NewUpdateKey(rng(12))
	if _, err := OpenInviteBundle(ws, other, &d); !errors.Is(err, ErrBundle) {
		t.Fatalf("wrong key: %v", err)
	}
	d.RootEpoch = 13
	if _, err := OpenInviteBundle(ws, priv, &d); !errors.Is(err, ErrBundle) {
		t.Fatalf("relabelled epoch: %v", err)
	}
}

func TestJoinDataRoundTrip(t *testing.T) {
	dev, _ := identity.GenerateKey[identity.Device](rng(13))
	pol := &roster.GroupPolicy{Group: identity.GroupID{3}, Kind: roster.KindChannel, Admission: roster.AdmissionParent}
	at := time.UnixMilli(1796000000123)
	j, err := NewJoinData(dev, roster.Ref{Index: 4, Head: roster.Head{9}}, PathSelfJoin, pol, [32]byte{3}, 5, []byte("leafkey"), at)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeJoinData(j.Encode())
	if err != nil || got.RosterRef != j.RosterRef || got.PolicyHash != pol.Hash() || got.Device != j.Device ||
		!got.Time.Equal(at) || got.Version != JoinDataVersion {
		t.Fatalf("%+v %v", got, err)
	}
	// The time is signed: another time does not verify.
	moved := got
	moved.Time = at.Add(time.Hour)
	if err := dev.Public().Verify(LabelJoin, moved.TBS([32]byte{3}, 5), got.Signature); err == nil {
		t.Fatal("signature verified for another time")
	}
	// Version 1 (no time), as the logs before version 2 hold it, still
	// decodes and verifies.
	v1 := JoinData{Version: 1, Path: PathSelfJoin, Device: j.Device, RosterRef: j.RosterRef, PolicyHash: j.PolicyHash,
		LeafSigKey: j.LeafSigKey}
	if v1.Signature, err = dev.Sign(LabelJoin, v1.TBS([32]byte{3}, 5)); err != nil {
		t.Fatal(err)
	}
	old, err := DecodeJoinData(v1.Encode())
	if err != nil || old.Version != 1 || !old.Time.IsZero() {
		t.Fatalf("version 1: %+v %v", old, err)
	}
	if err := dev.Public().Verify(LabelJoin, old.TBS([32]byte{3}, 5), old.Signature); err != nil {
		t.Fatalf("version 1: %v", err)
	}
	if err := dev.Public().Verify(LabelJoin, got.TBS([32]byte{3}, 5), got.Signature); err != nil {
		t.Fatal(err)
	}
	if err := dev.Public().Verify(LabelJoin, got.TBS([32]byte{3}, 6), got.Signature); err == nil {
		t.Fatal("signature verified for another epoch")
	}
}

func TestRecoveryWrap(t *testing.T) {
	phrase, err := identity.NewRecoveryPhrase(rng(20))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := identity.DeriveRecoveryKeys(phrase)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := keys.HPKE.Key().Bytes()
	if err != nil {
		t.Fatal(err)
	}
	tag, _ := RecoveryTag(fixedExporter("e"), keys.Signature.Public().Bytes())
	k, _ := NewHistoryKey(rng(21))
	g := [32]byte{4}
	w, err := SealRecoveryWrap(rng(22), keys.HPKE.PublicBytes(), g, tag, &RecoveryPlain{GroupInfo: []byte("gi"), Epoch: 3, History: []HistoryKey{k}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := DecodeRecoveryWrap(w.Encode())
	if err != nil {
		t.Fatal(err)
	}
	p, err := OpenRecoveryWrap(priv, g, &d)
	if err != nil || p.Epoch != 3 || string(p.GroupInfo) != "gi" || p.History[0].ID != k.ID {
		t.Fatalf("%+v %v", p, err)
	}
	if _, err := OpenRecoveryWrap(priv, [32]byte{5}, &d); !errors.Is(err, ErrOpen) {
		t.Fatalf("other group: %v", err)
	}
}
