package mls

import (
	"bytes"
	"testing"

	"weald/backend/internal/codec"
	"weald/backend/mls/framing"
	"weald/backend/mls/internal/mlstest"
)

// messageSeeds returns the MLSMessages of messages.json (a few cases).
func messageSeeds(f *testing.F) []map[string]hexb {
	var cases []map[string]hexb
	mlstest.Load(f, "messages.json", &cases)
	if len(cases) > 20 {
		cases = cases[:20]
	}
	return cases
}

func bodyOf(b []byte) []byte {
	if m, err := framing.DecodeMLSMessage(b); err == nil {
		return m.Body
	}
	return b
}

func FuzzDecodeWelcome(f *testing.F) {
	for _, c := range messageSeeds(f) {
		f.Add(bodyOf(c["mls_welcome"]))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		wl, err := DecodeWelcome(b)
		if err != nil {
			return
		}
		if !bytes.Equal(wl.Bytes(), b) {
			t.Fatal("welcome does not re-encode to its input")
		}
	})
}

func FuzzDecodeGroupInfo(f *testing.F) {
	for _, c := range messageSeeds(f) {
		f.Add(bodyOf(c["mls_group_info"]))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		gi, err := DecodeGroupInfo(b)
		if err != nil {
			return
		}
		if !bytes.Equal(gi.Bytes(), b) {
			t.Fatal("group info does not re-encode to its input")
		}
	})
}

func FuzzDecodeGroupSecrets(f *testing.F) {
	for _, c := range messageSeeds(f) {
		f.Add([]byte(c["group_secrets"]))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		gs, err := DecodeGroupSecrets(b)
		if err != nil {
			return
		}
		w := codec.NewWriter(nil)
		gs.Encode(w)
		if !bytes.Equal(w.Bytes(), b) {
			t.Fatal("group secrets do not re-encode to their input")
		}
	})
}

// liveGroup is alice and bob in a group, plus real messages as seeds.
type liveGroup struct {
	cfg         *Config
	alice, bob  *Group
	bobState    []byte
	bobKP       *KeyPackageBundle
	seeds       [][]byte
	welcome, gi []byte
}

func newLiveGroup(tb testing.TB) *liveGroup {
	cfg := testConfig()
	alice, err := NewGroup(cfg, 1, []byte("fuzz"), basic("alice"))
	if err != nil {
		tb.Fatal(err)
	}
	kp, err := GenerateKeyPackage(cfg, 1, basic("bob"))
	if err != nil {
		tb.Fatal(err)
	}
	sc, err := alice.Commit(CommitOptions{Add: [][]byte{kp.Message()}, RatchetTreeInWelcome: true})
	if err != nil {
		tb.Fatal(err)
	}
	if err := alice.Merge(sc); err != nil {
		tb.Fatal(err)
	}
	bob, _, err := JoinWelcome(cfg, sc.Welcome, []*KeyPackageBundle{kp}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	lg := &liveGroup{cfg: cfg, alice: alice, bob: bob, welcome: sc.Welcome, bobKP: kp}
	app, _ := alice.Protect([]byte("hello"), []byte("ad"))
	up, _ := alice.ProposeUpdate(false)
	upc, _ := alice.Commit(CommitOptions{ForcePath: true})
	priv, _ := alice.Commit(CommitOptions{ForcePath: true, Private: true})
	gi, _ := alice.GroupInfo(true)
	_, ext, err := ExternalJoin(cfg, gi, nil, basic("carol"), ExternalJoinOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	lg.gi = gi
	lg.seeds = [][]byte{app, up, upc.Message, priv.Message, ext}
	if lg.bobState, err = bob.Encode(); err != nil {
		tb.Fatal(err)
	}
	return lg
}

// FuzzProcess feeds arbitrary messages to a live member: no input may
// panic, and a rejected one must leave the state byte for byte as it was.
func FuzzProcess(f *testing.F) {
	lg := newLiveGroup(f)
	for _, s := range lg.seeds {
		f.Add(s)
	}
	for _, c := range messageSeeds(f) {
		f.Add([]byte(c["public_message_commit"]))
		f.Add([]byte(c["private_message"]))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := LoadGroup(lg.cfg, lg.bobState)
		if err != nil {
			t.Fatal(err)
		}
		r, err := g.Process(b)
		if err != nil {
			after, _ := g.Encode()
			if !bytes.Equal(after, lg.bobState) {
				t.Fatalf("rejected input changed the state: %v", err)
			}
			return
		}
		if r.Commit != nil {
			if err := g.Merge(r.Commit); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzJoin feeds arbitrary Welcome and GroupInfo messages to the join paths.
func FuzzJoin(f *testing.F) {
	lg := newLiveGroup(f)
	f.Add(lg.welcome)
	f.Add(lg.gi)
	for _, c := range messageSeeds(f) {
		f.Add([]byte(c["mls_welcome"]))
		f.Add([]byte(c["mls_group_info"]))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _, _ = JoinWelcome(lg.cfg, b, []*KeyPackageBundle{lg.bobKP}, nil)
		_, _, _ = ExternalJoin(lg.cfg, b, nil, basic("zed"), ExternalJoinOptions{})
	})
}

// FuzzLoadGroup: stored state is checked on load and never panics.
func FuzzLoadGroup(f *testing.F) {
	lg := newLiveGroup(f)
	f.Add(lg.bobState)
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := LoadGroup(lg.cfg, b)
		if err != nil {
			return
		}
		_ = g.Members()
		_, _ = g.Protect([]byte("x"), nil)
	})
}
