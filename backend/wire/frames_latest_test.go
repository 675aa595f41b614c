package wire

import (
	"errors"
	"testing"
)

// TestFetchLatestDecodeRules: a FETCH_LATEST names 1 to MaxLatestKinds
// distinct kinds; anything else, or a cut frame, is malformed (never a
// panic).
func TestFetchLatestDecodeRules(t *testing.T) {
	g := testID("g")
	many := make([]Kind, MaxLatestKinds+1)
	for i := range many {
		many[i] = Kind(i + 1)
	}
	max := many[:MaxLatestKinds]
	for _, c := range []struct {
		name  string
		kinds []Kind
		ok    bool
	}{
		{"one", []Kind{KindGroupInfoPublish}, true},
		{"max", max, true},
		{"unknown value decodes (the relay refuses it)", []Kind{0x7777}, true},
		{"none", nil, false},
		{"duplicate", []Kind{KindHistoryPublish, KindGroupInfoPublish, KindHistoryPublish}, false},
		{"too many", many, false},
	} {
		b, err := EncodeFrame(Frame{ID: 3, Body: &FetchLatest{Group: g, Kinds: c.kinds}})
		if err != nil {
			t.Fatal(err)
		}
		f, err := DecodeFrame(b)
		if c.ok != (err == nil) {
			t.Fatalf("%s: decode error %v", c.name, err)
		}
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("%s: %v does not wrap ErrMalformed", c.name, err)
			}
			continue
		}
		if got := f.Body.(*FetchLatest); got.Group != g || len(got.Kinds) != len(c.kinds) {
			t.Fatalf("%s: decoded %+v", c.name, got)
		}
		// Every strict prefix is malformed.
		for n := 0; n < len(b); n++ {
			if _, err := DecodeFrame(b[:n]); err == nil {
				t.Fatalf("%s: %d-byte prefix decoded", c.name, n)
			}
		}
	}
	// An odd-length kinds vector (half a uint16) is malformed.
	var w writer
	w.U8(uint8(FrameFetchLatest))
	w.U32(1)
	w.Array32(g)
	w.Opaque([]byte{0x00, 0x60, 0x00})
	if _, err := DecodeFrame(w.Bytes()); !errors.Is(err, ErrMalformed) {
		t.Fatalf("odd kinds vector: %v", err)
	}
	// A Latest answer with a duplicated left_out kind is malformed too.
	b, _ := EncodeFrame(Frame{ID: 3, Body: &Latest{Group: g, LeftOut: []Kind{KindHistoryPublish, KindHistoryPublish}}})
	if _, err := DecodeFrame(b); !errors.Is(err, ErrMalformed) {
		t.Fatalf("duplicate left_out: %v", err)
	}
}
