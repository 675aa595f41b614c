package canon

import (
	"bytes"
	"errors"
	"testing"
)

func TestVarint(t *testing.T) {
	cases := []struct {
		n   uint64
		enc []byte
	}{
		{0, []byte{0}}, {63, []byte{0x3f}}, {64, []byte{0x40, 0x40}}, {16383, []byte{0x7f, 0xff}},
		{16384, []byte{0x80, 0, 0x40, 0}}, {MaxVarint, []byte{0xbf, 0xff, 0xff, 0xff}},
	}
	for _, c := range cases {
		var w Writer
		w.Varint(c.n)
		if !bytes.Equal(w.Bytes(), c.enc) {
			t.Fatalf("%d: %x", c.n, w.Bytes())
		}
		r := NewReader(c.enc)
		if got := r.Varint(); got != c.n || r.Done() != nil {
			t.Fatalf("%d: read %d %v", c.n, got, r.Err())
		}
	}
	var w Writer
	w.Varint(MaxVarint + 1)
	if !errors.Is(w.Err(), ErrTooLong) {
		t.Fatal("oversized varint accepted")
	}
	for _, bad := range []struct {
		b   []byte
		err error
	}{{[]byte{0x40, 0x01}, ErrNonMinimal}, {[]byte{0xc0}, ErrReserved}, {[]byte{0x80, 0, 0}, ErrTruncated}, {nil, ErrTruncated}} {
		r := NewReader(bad.b)
		r.Varint()
		if !errors.Is(r.Err(), bad.err) {
			t.Fatalf("%x: %v", bad.b, r.Err())
		}
	}
}

func TestStructRoundTrip(t *testing.T) {
	var w Writer
	w.U8(1)
	w.U16(2)
	w.U32(3)
	w.U64(4)
	w.Bool(true)
	w.String("hi")
	w.Vector(func(w *Writer) { w.U8(7); w.U8(8) })
	r := NewReader(w.Bytes())
	if r.U8() != 1 || r.U16() != 2 || r.U32() != 3 || r.U64() != 4 || !r.Bool() || r.String(10) != "hi" {
		t.Fatal("scalar round trip")
	}
	var got []byte
	r.Vector(10, func(r *Reader) { got = append(got, r.U8()) })
	if err := r.Done(); err != nil || !bytes.Equal(got, []byte{7, 8}) {
		t.Fatalf("vector %v %v", got, err)
	}
	// Limits and trailing bytes.
	r = NewReader(w.Bytes())
	r.Raw(16)
	r.String(1)
	if !errors.Is(r.Err(), ErrTooLong) {
		t.Fatalf("max length not enforced: %v", r.Err())
	}
	r = NewReader([]byte{2, 1, 2})
	r.Vector(1, func(r *Reader) { r.U8() })
	if !errors.Is(r.Err(), ErrTooLong) {
		t.Fatalf("max elements not enforced: %v", r.Err())
	}
	r = NewReader([]byte{1, 2})
	r.U8()
	if !errors.Is(r.Done(), ErrTrailing) {
		t.Fatal("trailing bytes accepted")
	}
	r = NewReader([]byte{2})
	r.Bool()
	if !errors.Is(r.Err(), ErrInvalidBool) {
		t.Fatal("bool 2 accepted")
	}
	r = NewReader([]byte{3, 1})
	r.Vector(10, func(r *Reader) { r.U8() })
	if !errors.Is(r.Err(), ErrTruncated) {
		t.Fatal("short vector accepted")
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte{3, 1, 2, 3, 0x40, 0x40})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewReader(b)
		for i := 0; i < 8 && r.Err() == nil && !r.Empty(); i++ {
			r.Vector(4, func(r *Reader) { r.Opaque(16) })
			r.Bool()
			r.Varint()
		}
		_ = r.Done()
	})
}
