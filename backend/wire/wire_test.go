package wire

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"reflect"
	"testing"
)

// testKey derives a deterministic Ed25519 key from a name.
func testKey(name string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("wire test " + name))
	return ed25519.NewKeyFromSeed(seed[:])
}

func pubOf(k ed25519.PrivateKey) []byte { return k.Public().(ed25519.PublicKey) }

func testID(name string) ID { return sha256.Sum256([]byte(name)) }

func sampleEnvelope() Envelope {
	e := Envelope{Group: testID("g"), Kind: KindContent, Ctr: 2, Prev: testID("prev"), CT: []byte("ciphertext")}
	SignEnvelope(&e, testKey("alice"))
	return e
}

func sampleAccessSet() AccessSet {
	a := AccessSet{
		Workspace: testID("ws"), Version: 3,
		Devices:  []DeviceKey{{Pub: pubOf(testKey("alice")), User: testID("u1"), Admin: true}, {Pub: pubOf(testKey("bob")), User: testID("u2")}},
		Agents:   [][]byte{pubOf(testKey("agent"))},
		Recovery: [][]byte{pubOf(testKey("rec1")), pubOf(testKey("rec2"))},
		Grants:   []ID{ID(pubOf(testKey("grant")))},
	}
	SignAccessSet(&a, testKey("alice"))
	return a
}

func sampleDrop(auth uint8) DropBefore {
	d := DropBefore{Group: testID("g"), Checkpoint: EnvelopeRef{Author: testID("a"), Ctr: 9, Hash: testID("h")},
		ManifestHash: testID("m"), Snapshots: []EnvelopeRef{{Author: testID("a"), Ctr: 7, Hash: testID("s")}},
		Authorization: auth}
	if auth == AuthorizedByPolicy {
		d.Policy = EnvelopeRef{Author: testID("admin"), Ctr: 1, Hash: testID("p")}
	} else {
		d.Destruction = RetentionDestruction{Group: testID("g"), Checkpoint: d.Checkpoint, NotBefore: 100, NotAfter: 200}
		d.Destruction.Approve(testKey("alice"))
	}
	d.Sign(testKey("retention"))
	return d
}

// sampleFrames has one frame of every type.
func sampleFrames() []Frame {
	e := sampleEnvelope()
	wd := WrapsDelete{Workspace: testID("ws"), Group: e.Group, Tags: []ID{testID("tag")}}
	wd.Sign(testKey("alice"))
	return []Frame{
		{ID: 1, Body: &Hello{Version: ProtocolVersion, Workspace: testID("ws")}},
		{ID: 1, Body: &Challenge{Nonce: testID("nonce"), Relay: testID("relay")}},
		{ID: 2, Body: SignChallenge(testKey("alice"), PrincipalDevice, testBinding("ws", "nonce"))},
		{ID: 2, Body: SignGrantChallenge(testKey("joiner"), testKey("grant"), testBinding("ws", "nonce"))},
		{ID: 2, Body: &Provision{GenesisKey: testID("genesis"), Token: []byte("token-bytes")}},
		{ID: 2, Body: &Provision{GenesisKey: testID("genesis")}},
		{ID: 2, Body: &Provisioned{}},
		{ID: 2, Body: &Teardown{Signature: make([]byte, 64)}},
		{ID: 2, Body: &TornDown{}},
		{ID: 2, Body: &AuthOK{Kind: PrincipalDevice, Principal: KeyID(pubOf(testKey("alice"))), AccessVersion: 4}},
		{ID: 3, Body: &Send{Envelopes: []Envelope{e, e}}},
		{ID: 3, Body: &Ack{Items: []AckItem{{Group: e.Group, Seq: 10, Hash: e.Hash()}}}},
		{ID: 4, Body: &Fetch{Group: e.Group, AfterSeq: 9, Limit: 100}},
		{ID: 4, Body: &Envelopes{Group: e.Group, Envelopes: []SeqEnvelope{{Seq: 10, Envelope: e}}, HeadSeq: 10, DroppedBelow: 3, More: true}},
		{ID: 4, Body: &Envelopes{Group: e.Group, Envelopes: []SeqEnvelope{{Seq: 10, Envelope: e}}, HeadSeq: 12, DroppedBelow: 3, Through: 12,
			Deleted: []Tombstone{{Seq: 11, Tag: testID("tag")}, {Seq: 12, Tag: testID("tag")}}, Deletions: []WrapsDelete{wd}}},
		{ID: 4, Body: &FetchLatest{Group: e.Group, Kinds: []Kind{KindGroupInfoPublish, KindHistoryPublish}}},
		{ID: 4, Body: &Latest{Group: e.Group, Envelopes: []SeqEnvelope{{Seq: 10, Envelope: e}}, HeadSeq: 12, DroppedBelow: 3, LeftOut: []Kind{KindHistoryPublish}}},
		{ID: 4, Body: &Latest{Group: e.Group}},
		{ID: 5, Body: &Subscribe{Items: []SubscribeItem{{Group: e.Group, AfterSeq: 10}, {Group: testID("g2")}}}},
		{ID: 6, Body: &Unsubscribe{Groups: []ID{e.Group}}},
		{ID: 6, Body: &OK{}},
		{ID: 7, Body: &RosterAppend{ExpectedHead: ZeroID, Op: []byte("op")}},
		{ID: 7, Body: &RosterAppended{Index: 1, Head: sha256.Sum256([]byte("op"))}},
		{ID: 8, Body: &RosterFetch{AfterIndex: 0, Limit: 50}},
		{ID: 8, Body: &RosterOps{FirstIndex: 1, Ops: [][]byte{[]byte("op"), []byte("op2")}, Head: testID("h"), HeadIndex: 2}},
		{ID: 9, Body: &AccessSetPublish{Set: sampleAccessSet()}},
		{ID: 9, Body: &AccessSetAccepted{Version: 3}},
		{ID: 10, Body: &AccessSetGet{}},
		{ID: 10, Body: &AccessSetCurrent{Set: sampleAccessSet(), AcceptedAt: 1767225600}},
		{ID: 11, Body: &KeyPackagePut{Items: []KeyPackageItem{{KeyPackage: []byte("kp1")}, {KeyPackage: []byte("kp-lr"), LastResort: true}}}},
		{ID: 11, Body: &KeyPackageStock{OneUse: 1, LastResort: true}},
		{ID: 12, Body: &KeyPackageClaim{Owner: testID("dev")}},
		{ID: 12, Body: &KeyPackageClaimed{Owner: testID("dev"), KeyPackage: []byte("kp1")}},
		{ID: 12, Body: &KeyPackageClaimBatch{Owners: []ID{testID("dev"), testID("dev"), testID("dev2")}}},
		{ID: 12, Body: &KeyPackageClaimedBatch{Items: []ClaimedItem{{Owner: testID("dev"), Found: true, KeyPackage: []byte("kp1")},
			{Owner: testID("dev"), Found: true, KeyPackage: []byte("kp-lr"), LastResort: true}, {Owner: testID("dev2")}}}},
		{ID: 13, Body: &DropBeforeRequest{Drop: sampleDrop(AuthorizedByPolicy)}},
		{ID: 13, Body: &DropBeforeRequest{Drop: sampleDrop(AuthorizedByDestruction)}},
		{ID: 13, Body: &Dropped{Group: e.Group, BarrierSeq: 40, Envelopes: 39, Bytes: 1234}},
		{ID: 13, Body: sampleWrapsDelete()},
		{ID: 13, Body: &WrapsDeleted{Group: e.Group, Envelopes: 2, Bytes: 300}},
		{ID: 13, Body: &AccessRefusalsGet{After: 7}},
		{ID: 13, Body: &AccessRefusals{Refusals: []AccessRefusal{{ID: 8, At: 1700000000, Set: []byte("set")}}}},
		{ID: 13, Body: &WrapsDeleteBatch{Items: []WrapsDelete{*sampleWrapsDelete(), *sampleWrapsDelete()}}},
		{ID: 13, Body: &WrapsDeletedBatch{Items: []WrapsDeleted{{Group: e.Group, Envelopes: 2, Bytes: 300}, {Group: testID("g2")}}}},
		{ID: 13, Body: &WelcomeNotice{Welcomes: []WelcomeRef{{Group: e.Group, Seq: 4}, {Group: testID("g2"), Seq: 1}}, To: []ID{testID("dev"), testID("dev2")}}},
		{ID: 13, Body: &WelcomesGet{}},
		{ID: 13, Body: &Welcomes{Items: []WelcomeRef{{Group: e.Group, Seq: 4}, {Group: testID("g2"), Seq: 9}}}},
		{ID: 13, Body: &WelcomesDone{Items: []WelcomeRef{{Group: e.Group, Seq: 4}}}},
		{ID: 13, Body: &RecoveryDirPut{Items: []DirPut{{Owner: testID("rec"), Group: e.Group, Seq: 4}, {Owner: testID("rec"), Group: testID("g2"), Seq: 9}}}},
		{ID: 13, Body: &RecoveryDirGet{Owner: testID("rec")}},
		{ID: 13, Body: &RecoveryDir{Owner: testID("rec"), Slots: []DirSlot{
			{Group: e.Group, Current: DirEntry{Seq: 9, Epoch: 3, Tag: testID("t3"), Present: true}, Fallback: DirEntry{Seq: 4, Epoch: 2, Tag: testID("t2")}},
			{Group: testID("g2"), Current: DirEntry{Seq: 1, Epoch: 1, Tag: testID("t1"), Present: true}}}}},
		{ID: 13, Body: &RecoveryDir{Owner: testID("rec")}},
		{ID: 13, Body: sampleDirDrop()},
		{ID: 13, Body: &RecoveryDirDropped{Slots: 3}},
		{ID: 14, Body: &StatsRequest{}},
		{ID: 14, Body: &Stats{Workspace: testID("ws"), LogBytes: 99, LimitBytes: 1000, Envelopes: 3, Groups: 1, RetentionDays: 30, OverRetention: 1, OldestUnix: 1700000000}},
		{ID: 15, Body: &ErrorBody{Err: Errorf(CodeLogBudgetExhausted, "The workspace is over its byte budget.", U("limit_bytes", 1000), B("head", []byte{1, 2}), T("note", "x"))}},
		{Body: &EventEnvelopes{Group: e.Group, Envelopes: []SeqEnvelope{{Seq: 11, Envelope: e}}}},
		{Body: &EventAccessSet{Version: 5}},
		{Body: &EventRoster{Index: 2, Head: testID("h")}},
		{Body: &EventWelcome{WelcomeRef{Group: e.Group, Seq: 4}}},
	}
}

func TestFrameRoundTrip(t *testing.T) {
	seen := map[FrameType]bool{}
	for _, f := range sampleFrames() {
		b, err := EncodeFrame(f)
		if err != nil {
			t.Fatalf("encode %T: %v", f.Body, err)
		}
		g, err := DecodeFrame(b)
		if err != nil {
			t.Fatalf("decode %T: %v", f.Body, err)
		}
		if !reflect.DeepEqual(f, g) {
			t.Errorf("%T: round trip changed the frame:\n got %#v\nwant %#v", f.Body, g.Body, f.Body)
		}
		b2, _ := EncodeFrame(g)
		if !bytes.Equal(b, b2) {
			t.Errorf("%T: re-encoding differs", f.Body)
		}
		seen[f.Body.FrameType()] = true
	}
	for ft := range bodyDecoders {
		if !seen[ft] {
			t.Errorf("frame type 0x%02x has no round-trip sample", uint8(ft))
		}
	}
}

func TestDecodeFrameRejects(t *testing.T) {
	good, _ := EncodeFrame(sampleFrames()[5])
	cases := map[string][]byte{
		"empty":       nil,
		"short id":    {byte(FrameSend), 0, 0},
		"trailing":    append(append([]byte(nil), good...), 0),
		"truncated":   good[:len(good)-1],
		"nonminimal":  {byte(FrameSend), 0, 0, 0, 1, 0x40, 0x00},
		"reserved":    {byte(FrameSend), 0, 0, 0, 1, 0xc0, 0, 0, 0, 0, 0, 0, 0},
		"bad bool":    {byte(FrameKeyPackageStock), 0, 0, 0, 1, 0, 0, 0, 0, 2},
		"bad method":  {byte(FrameAuth), 0, 0, 0, 1, 9, 0, 0},
		"huge vector": {byte(FrameSend), 0, 0, 0, 1, 0xbf, 0xff, 0xff, 0xff},
	}
	for name, b := range cases {
		if _, err := DecodeFrame(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
	_, err := DecodeFrame([]byte{0xee, 0, 0, 0, 7})
	var uf *UnknownFrameError
	if !errors.As(err, &uf) || uf.Type != 0xee || !errors.Is(err, ErrMalformed) {
		t.Errorf("unknown frame: err = %v", err)
	}
}

func TestEnvelopeSignatureAndHash(t *testing.T) {
	e := sampleEnvelope()
	alice := pubOf(testKey("alice"))
	if err := VerifyEnvelope(&e, alice); err != nil {
		t.Fatalf("verify: %v", err)
	}
	if err := VerifyEnvelope(&e, pubOf(testKey("bob"))); !errors.Is(err, ErrBadSignature) {
		t.Errorf("wrong key: %v", err)
	}
	for name, mutate := range map[string]func(*Envelope){
		"ct":    func(e *Envelope) { e.CT = []byte("other") },
		"ctr":   func(e *Envelope) { e.Ctr++ },
		"kind":  func(e *Envelope) { e.Kind = KindSnapshot },
		"group": func(e *Envelope) { e.Group[0] ^= 1 },
		"prev":  func(e *Envelope) { e.Prev[0] ^= 1 },
	} {
		m := e
		mutate(&m)
		if err := VerifyEnvelope(&m, alice); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s changed: verify = %v", name, err)
		}
	}
	b, _ := e.Encode()
	if e.Hash() != sha256.Sum256(b) {
		t.Error("hash is not SHA-256 of the encoding")
	}
	d, err := DecodeEnvelope(b)
	if err != nil || !reflect.DeepEqual(d, e) {
		t.Errorf("decode: %v", err)
	}
}

func TestSignatureDomainSeparation(t *testing.T) {
	k := testKey("alice")
	content := []byte("same bytes")
	sig := Sign(k, LabelEnvelope, content)
	if err := Verify(pubOf(k), LabelEnvelope, content, sig); err != nil {
		t.Fatal(err)
	}
	if err := Verify(pubOf(k), LabelAccessSet, content, sig); !errors.Is(err, ErrBadSignature) {
		t.Errorf("envelope signature verified as access-set: %v", err)
	}
	// The signed bytes are the TLS struct { label<V>; content<V>; }.
	want := append([]byte{byte(len("weald 1 envelope"))}, "weald 1 envelope"...)
	want = append(want, byte(len(content)))
	want = append(want, content...)
	if !bytes.Equal(SignContent(LabelEnvelope, content), want) {
		t.Errorf("SignContent = %x, want %x", SignContent(LabelEnvelope, content), want)
	}
	if Verify([]byte("short"), LabelEnvelope, content, sig) == nil {
		t.Error("malformed key verified")
	}
}

func testBinding(ws, nonce string) AuthBinding {
	return AuthBinding{Workspace: testID(ws), Nonce: testID(nonce), Relay: testID("relay"), Host: "relay.example:7447"}
}

func TestAuthChallenge(t *testing.T) {
	b := testBinding("ws", "n1")
	a := SignChallenge(testKey("alice"), PrincipalDevice, b)
	if err := a.VerifyChallenge(b); err != nil {
		t.Fatal(err)
	}
	if a.VerifyChallenge(testBinding("ws", "n2")) == nil || a.VerifyChallenge(testBinding("ws2", "n1")) == nil {
		t.Error("challenge signature verifies for another nonce or workspace")
	}
	enc, _ := EncodeFrame(Frame{ID: 1, Body: &Auth{Method: PrincipalGrant, Key: a.Key, Signature: a.Signature, Host: b.Host}})
	if _, err := DecodeFrame(enc); !errors.Is(err, ErrMalformed) {
		t.Errorf("grant auth without a grant key: %v", err)
	}
	enc, _ = EncodeFrame(Frame{ID: 1, Body: &Auth{Method: PrincipalDevice, Key: a.Key, Signature: a.Signature,
		Grant: pubOf(testKey("grant")), GrantSignature: a.Signature, Host: b.Host}})
	if _, err := DecodeFrame(enc); !errors.Is(err, ErrMalformed) {
		t.Errorf("key auth carrying a grant: %v", err)
	}
	// A grant AUTH proves the grant key over this nonce and this device
	// key; a captured one answers no other challenge, and its grant
	// signature carries no other device.
	g := SignGrantChallenge(testKey("joiner"), testKey("grant"), b)
	if err := g.VerifyChallenge(b); err != nil {
		t.Fatal(err)
	}
	if g.VerifyChallenge(testBinding("ws", "n2")) == nil {
		t.Error("a grant auth verifies for another nonce")
	}
	other := SignChallenge(testKey("thief"), PrincipalGrant, b)
	other.Grant, other.GrantSignature = g.Grant, g.GrantSignature
	if other.VerifyChallenge(b) == nil {
		t.Error("a grant signature made for one device verifies for another")
	}
	forged := *g
	forged.GrantSignature = Sign(testKey("thief"), LabelGrantAuth, AuthChallengeContent(b, g.Key))
	if forged.VerifyChallenge(b) == nil {
		t.Error("a grant signature by another key verifies")
	}
}

// TestAuthIsBoundToTheRelay: an AUTH answers only the relay id and host it
// was made for, for a key and for a grant; the host it names is the one it
// signed, and a frame with a host that is empty or not canonical does not
// decode.
func TestAuthIsBoundToTheRelay(t *testing.T) {
	b := testBinding("ws", "n1")
	otherRelay, otherHost := b, b
	otherRelay.Relay = testID("relay B")
	otherHost.Host = "relay-b.example"
	for name, a := range map[string]*Auth{
		"key":   SignChallenge(testKey("alice"), PrincipalDevice, b),
		"grant": SignGrantChallenge(testKey("joiner"), testKey("grant"), b),
	} {
		if a.Host != b.Host {
			t.Errorf("%s: auth names host %q, want %q", name, a.Host, b.Host)
		}
		if a.VerifyChallenge(otherRelay) == nil {
			t.Errorf("%s: verifies for another relay id", name)
		}
		if a.VerifyChallenge(otherHost) == nil {
			t.Errorf("%s: verifies for another host", name)
		}
		relabelled := *a
		relabelled.Host = otherHost.Host
		if relabelled.VerifyChallenge(otherHost) == nil {
			t.Errorf("%s: verifies with its host field rewritten", name)
		}
	}
	a := SignChallenge(testKey("alice"), PrincipalDevice, b)
	for _, h := range []string{"", "Relay.Example", "relay.example:443", "relay.example.", "::1"} {
		bad := *a
		bad.Host = h
		enc, _ := EncodeFrame(Frame{ID: 1, Body: &bad})
		if _, err := DecodeFrame(enc); !errors.Is(err, ErrMalformed) {
			t.Errorf("host %q: err = %v, want ErrMalformed", h, err)
		}
	}
}

func TestCanonicalHost(t *testing.T) {
	for in, want := range map[string]string{
		"relay.example":          "relay.example",
		"Relay.Example.":         "relay.example",
		"relay.example:443":      "relay.example",
		"relay.example:80":       "relay.example",
		"relay.example:7447":     "relay.example:7447",
		"127.0.0.1:7447":         "127.0.0.1:7447",
		"[::1]:7447":             "[::1]:7447",
		"[::1]":                  "[::1]",
		"::1":                    "[::1]",
		"[FE80::1]:443":          "[fe80::1]",
		"relay.example.:8443":    "relay.example:8443",
		" relay.example:8443 \t": "relay.example:8443",
		"":                       "",
		"relay example":          "",
		"relay.example:http":     "",
		"[::1]]":                 "",
		".":                      "",
	} {
		if got := CanonicalHost(in); got != want {
			t.Errorf("CanonicalHost(%q) = %q, want %q", in, got, want)
		}
		if again := CanonicalHost(want); again != want {
			t.Errorf("CanonicalHost(%q) = %q: not idempotent", want, again)
		}
	}
}

func TestAccessSet(t *testing.T) {
	a := sampleAccessSet()
	if err := a.VerifySignature(); err != nil {
		t.Fatal(err)
	}
	b, _ := a.Encode()
	d, err := DecodeAccessSet(b)
	if err != nil || !reflect.DeepEqual(d, a) {
		t.Fatalf("decode: %v", err)
	}
	d.Version++
	if d.VerifySignature() == nil {
		t.Error("changed version still verifies")
	}
	if pub, k := a.Lookup(KeyID(pubOf(testKey("agent")))); k != PrincipalAgent || !bytes.Equal(pub, pubOf(testKey("agent"))) {
		t.Errorf("lookup agent = %v", k)
	}
	if _, k := a.Lookup(KeyID(pubOf(testKey("rec2")))); k != PrincipalRecovery {
		t.Errorf("lookup recovery = %v", k)
	}
	if _, k := a.Lookup(testID("nobody")); k != PrincipalNone {
		t.Errorf("lookup nobody = %v", k)
	}
	if !a.HasGrant(ID(pubOf(testKey("grant")))) || a.HasGrant(ID(pubOf(testKey("other")))) {
		t.Error("HasGrant")
	}
	if n := len(a.AdminUsers()); n != 1 {
		t.Errorf("admin users = %d", n)
	}
	if len(a.KeyIDs()) != 5 {
		t.Errorf("key ids = %d", len(a.KeyIDs()))
	}
}

func TestRetentionObjects(t *testing.T) {
	root := RetentionTransition{Group: testID("g"), Epoch: 1, NewKey: pubOf(testKey("r1"))}
	root.Sign(testKey("alice"))
	next := RetentionTransition{Group: testID("g"), Epoch: 2, PrevKey: pubOf(testKey("r1")), NewKey: pubOf(testKey("r2"))}
	next.Sign(testKey("r1"))
	bad := next
	bad.Sign(testKey("mallory"))
	for _, tr := range []RetentionTransition{root, next} {
		if err := tr.VerifySignature(); err != nil {
			t.Errorf("epoch %d: %v", tr.Epoch, err)
		}
		d, err := DecodeRetentionTransition(tr.Encode())
		if err != nil || !reflect.DeepEqual(d, tr) {
			t.Errorf("decode epoch %d: %v", tr.Epoch, err)
		}
	}
	if bad.VerifySignature() == nil {
		t.Error("successor signed by a stranger verifies")
	}

	p := RetentionPolicy{Group: testID("g"), Version: 1, TextWindowDays: 30, MediaWindowDays: 7}
	p.Approve(testKey("alice"))
	dp, err := DecodeRetentionPolicy(p.Encode())
	if err != nil || !reflect.DeepEqual(dp, p) {
		t.Errorf("policy decode: %v", err)
	}
	if Verify(p.Approvals[0].DeviceKey, LabelRetentionPolicy, p.TBS(), p.Approvals[0].Signature) != nil {
		t.Error("approval does not verify")
	}

	c := Checkpoint{Group: testID("g"), Barrier: []EnvelopeRef{{Author: testID("a"), Ctr: 3, Hash: testID("x")}},
		Snapshots: []EnvelopeRef{{Author: testID("a"), Ctr: 2, Hash: testID("s")}}, Manifest: []byte("sealed")}
	c.Sign(testKey("r2"))
	if err := c.Verify(); err != nil {
		t.Fatal(err)
	}
	dc, err := DecodeCheckpoint(c.Encode())
	if err != nil || !reflect.DeepEqual(dc, c) {
		t.Errorf("checkpoint decode: %v", err)
	}
	c.Snapshots = nil
	if c.Verify() == nil {
		t.Error("checkpoint with a changed snapshot list verifies")
	}

	res := RetentionResolution{Group: testID("g"), Key: pubOf(testKey("r2"))}
	res.Approve(testKey("alice"))
	dres, err := DecodeRetentionResolution(res.Encode())
	if err != nil || !reflect.DeepEqual(dres, res) {
		t.Errorf("resolution decode: %v", err)
	}

	for _, auth := range []uint8{AuthorizedByPolicy, AuthorizedByDestruction} {
		d := sampleDrop(auth)
		if err := d.VerifySignature(); err != nil {
			t.Errorf("drop %d: %v", auth, err)
		}
		dd, err := DecodeDropBefore(d.Encode())
		if err != nil || !reflect.DeepEqual(dd, d) {
			t.Errorf("drop %d decode: %v", auth, err)
		}
	}
}

func TestKinds(t *testing.T) {
	if KindGroupInfoPublish != 0x0060 {
		t.Errorf("groupinfo.publish = %#x, want 0x0060", KindGroupInfoPublish)
	}
	for _, k := range Kinds() {
		if !k.Known() || k.String() == "" {
			t.Errorf("kind %v", k)
		}
	}
	if len(Kinds()) != len(kindNames) {
		t.Errorf("Kinds() lists %d of %d", len(Kinds()), len(kindNames))
	}
	if Kind(0x7777).Known() || Kind(0x7777).String() != "kind(0x7777)" {
		t.Error("unknown kind")
	}
}

func TestErrorFields(t *testing.T) {
	e := Errorf(CodeLogBudgetExhausted, "Over budget.", U("limit_bytes", 42))
	if v, ok := e.UintField("limit_bytes"); !ok || v != 42 {
		t.Errorf("limit_bytes = %d %v", v, ok)
	}
	if !errors.Is(error(e), &Error{Code: CodeLogBudgetExhausted}) || errors.Is(error(e), &Error{Code: CodeCASConflict}) {
		t.Error("errors.Is by code")
	}
	if got := e.Error(); got != "quota/log_budget_exhausted {limit_bytes: 42}: Over budget." {
		t.Errorf("Error() = %q", got)
	}
}

func TestVarintBoundaries(t *testing.T) {
	for _, n := range []int{0, 63, 64, 16383, 16384, 70000} {
		e := Envelope{CT: make([]byte, n)}
		b, err := e.Encode()
		if err != nil {
			t.Fatal(err)
		}
		d, err := DecodeEnvelope(b)
		if err != nil || len(d.CT) != n {
			t.Errorf("ct of %d bytes: %v", n, err)
		}
	}
}
