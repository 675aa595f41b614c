package wire

import (
	"bytes"
	"testing"
)

// FuzzDecodeFrame checks that DecodeFrame never panics and that every frame it
// accepts re-encodes to the same bytes (the encoding is canonical).
func FuzzDecodeFrame(f *testing.F) {
	for _, fr := range sampleFrames() {
		b, err := EncodeFrame(fr)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := DecodeFrame(b)
		if err != nil {
			return
		}
		again, err := EncodeFrame(fr)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("not canonical:\n in %x\nout %x", b, again)
		}
	})
}

// FuzzDecodeObjects covers the stand-alone object decoders.
func FuzzDecodeObjects(f *testing.F) {
	e := sampleEnvelope()
	eb, _ := e.Encode()
	a := sampleAccessSet()
	ab, _ := a.Encode()
	f.Add(uint8(0), eb)
	f.Add(uint8(1), ab)
	sd := sampleDrop(AuthorizedByDestruction)
	f.Add(uint8(2), sd.Encode())
	c := Checkpoint{Group: testID("g"), Manifest: []byte("m")}
	c.Sign(testKey("r"))
	f.Add(uint8(3), c.Encode())
	tr := RetentionTransition{Group: testID("g"), Epoch: 1, NewKey: pubOf(testKey("r"))}
	tr.Sign(testKey("alice"))
	f.Add(uint8(4), tr.Encode())
	p := RetentionPolicy{Group: testID("g"), Version: 1}
	p.Approve(testKey("alice"))
	f.Add(uint8(5), p.Encode())
	rr := RetentionResolution{Group: testID("g"), Key: pubOf(testKey("r"))}
	rr.Approve(testKey("alice"))
	f.Add(uint8(6), rr.Encode())
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		var out []byte
		switch which % 7 {
		case 0:
			v, err := DecodeEnvelope(b)
			if err != nil {
				return
			}
			out, _ = v.Encode()
		case 1:
			v, err := DecodeAccessSet(b)
			if err != nil {
				return
			}
			out, _ = v.Encode()
		case 2:
			v, err := DecodeDropBefore(b)
			if err != nil {
				return
			}
			out = v.Encode()
		case 3:
			v, err := DecodeCheckpoint(b)
			if err != nil {
				return
			}
			out = v.Encode()
		case 4:
			v, err := DecodeRetentionTransition(b)
			if err != nil {
				return
			}
			out = v.Encode()
		case 5:
			v, err := DecodeRetentionPolicy(b)
			if err != nil {
				return
			}
			out = v.Encode()
		case 6:
			v, err := DecodeRetentionResolution(b)
			if err != nil {
				return
			}
			out = v.Encode()
		}
		if !bytes.Equal(out, b) {
			t.Fatalf("decoder %d not canonical:\n in %x\nout %x", which%7, b, out)
		}
	})
}

// FuzzCanonicalHost: CanonicalHost never panics and is idempotent, so the
// host a client signs always decodes at the relay (decodeAuth accepts only
// canonical hosts).
func FuzzCanonicalHost(f *testing.F) {
	for _, s := range []string{"relay.example", "Relay.Example.:443", "[::1]:7447", "::1", "127.0.0.1:80", "a:b:c", "[", "]:", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		c := CanonicalHost(in)
		if again := CanonicalHost(c); again != c {
			t.Fatalf("CanonicalHost(%q) = %q, then %q", in, c, again)
		}
	})
}
