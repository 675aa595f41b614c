package keyschedule

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"

	"weald/backend/internal/codec"
	"weald/backend/mls/suite"
)

func TestExternalInit(t *testing.T) {
	for _, id := range []suite.ID{1, 2, 3, 5, 7} {
		s, _ := suite.ByID(id)
		ext := bytes.Repeat([]byte{9}, s.Nh())
		kp, err := ExternalKeyPair(s, ext)
		if err != nil {
			t.Fatal(err)
		}
		kem, initS, err := ExternalInitSend(s, rand.Reader, kp.Public)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ExternalInitReceive(s, ext, kem)
		if err != nil || !bytes.Equal(got, initS) || len(initS) != s.Nh() {
			t.Fatalf("suite %d: external init secrets differ (%v)", id, err)
		}
	}
}

func TestBadInputs(t *testing.T) {
	s, _ := suite.ByID(1)
	if _, err := Derive(s, []byte{1}, nil, nil, nil); !errors.Is(err, ErrBadSecret) {
		t.Fatal(err)
	}
	if _, err := Derive(s, make([]byte, 32), []byte{1}, nil, nil); !errors.Is(err, ErrBadSecret) {
		t.Fatal(err)
	}
	for _, in := range [][]byte{{0}, {3, 0}, {2, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {1}} {
		r := codec.NewReader(in)
		DecodePreSharedKeyID(r)
		if r.Done() == nil {
			t.Errorf("%x accepted", in)
		}
	}
	r := codec.NewReader([]byte{0, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	DecodeGroupContext(r)
	if r.Done() == nil {
		t.Error("version 2 group context accepted")
	}
}

func TestResumptionPSKIDRoundTrip(t *testing.T) {
	id := PreSharedKeyID{Type: PSKResumption, Usage: UsageReinit, PSKGroupID: []byte("g"), PSKEpoch: 7, Nonce: make([]byte, 32)}
	var w codec.Writer
	id.Encode(&w)
	r := codec.NewReader(w.Bytes())
	back := DecodePreSharedKeyID(r)
	if r.Done() != nil || back.Usage != UsageReinit || back.PSKEpoch != 7 || string(back.PSKGroupID) != "g" {
		t.Fatal("round trip")
	}
}

func FuzzDecodeGroupContext(f *testing.F) {
	gc := GroupContext{Version: 1, CipherSuite: 1, GroupID: []byte("g"), Epoch: 3, TreeHash: make([]byte, 32), ConfirmedTranscriptHash: make([]byte, 32)}
	f.Add(gc.Bytes())
	f.Fuzz(func(t *testing.T, in []byte) {
		r := codec.NewReader(in)
		g := DecodeGroupContext(r)
		if r.Done() != nil {
			return
		}
		if !bytes.Equal(g.Bytes(), in) {
			t.Fatalf("re-encoding differs")
		}
	})
}

func BenchmarkDeriveEpoch(b *testing.B) {
	s, _ := suite.ByID(1)
	gc := (&GroupContext{Version: 1, CipherSuite: 1, GroupID: make([]byte, 32), Epoch: 3, TreeHash: make([]byte, 32), ConfirmedTranscriptHash: make([]byte, 32)}).Bytes()
	init := make([]byte, 32)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Derive(s, init, init, nil, gc); err != nil {
			b.Fatal(err)
		}
	}
}
