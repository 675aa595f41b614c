package codec

import (
	"bytes"
	"errors"
	"testing"
)

func TestBoundedReads(t *testing.T) {
	var w Writer
	w.String("hi")
	w.Vector(func(w *Writer) { w.U8(7); w.U8(8) })
	w.Raw(bytes.Repeat([]byte{9}, 32))
	w.Opaque(nil)
	r := NewReader(w.Bytes())
	if r.StringMax(2) != "hi" {
		t.Fatal("string")
	}
	var got []byte
	r.VectorMax(2, func(r *Reader) { got = append(got, r.U8()) })
	if a := r.Array32(); a != [32]byte(bytes.Repeat([]byte{9}, 32)) {
		t.Fatalf("array %x", a)
	}
	if e := r.OpaqueMax(0); e == nil || len(e) != 0 {
		t.Fatalf("empty opaque %#v, want empty and non-nil", e)
	}
	if err := r.Done(); err != nil || !bytes.Equal(got, []byte{7, 8}) {
		t.Fatalf("vector %v %v", got, err)
	}

	in := w.Bytes()
	r = NewReader(in)
	b := r.OpaqueMax(2)
	b[0] = 'X'
	if in[1] != 'h' {
		t.Fatal("OpaqueMax aliases the input")
	}
	for name, read := range map[string]func(r *Reader){
		"opaque over max": func(r *Reader) { r.StringMax(1) },
		"too many elems":  func(r *Reader) { r.StringMax(2); r.VectorMax(1, func(r *Reader) { r.U8() }) },
	} {
		r := NewReader(in)
		read(r)
		if !errors.Is(r.Err(), ErrTooLong) {
			t.Errorf("%s: %v, want ErrTooLong", name, r.Err())
		}
	}
	r = NewReader([]byte{3, 1})
	r.VectorMax(10, func(r *Reader) { r.U8() })
	if !errors.Is(r.Err(), ErrTruncated) {
		t.Fatalf("short vector: %v", r.Err())
	}
	r = NewReader(make([]byte, 31))
	if r.Array32(); !errors.Is(r.Err(), ErrTruncated) {
		t.Fatalf("short array: %v", r.Err())
	}
}

// TestSignedContent pins the bytes a Weald signature covers.
func TestSignedContent(t *testing.T) {
	got := SignedContent("envelope", []byte{1, 2})
	want := append([]byte{16}, "weald 1 envelope"...)
	want = append(want, 2, 1, 2)
	if !bytes.Equal(got, want) {
		t.Fatalf("SignedContent = %x, want %x", got, want)
	}
}
