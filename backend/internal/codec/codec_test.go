package codec

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
)

func TestVarintErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want error
	}{
		{"", ErrTruncated},
		{"40", ErrTruncated},
		{"8000", ErrTruncated},
		{"4001", ErrNonMinimal},
		{"403f", ErrNonMinimal},
		{"80003fff", ErrNonMinimal},
		{"c000000000000000", ErrReservedVarint},
	} {
		b, _ := hex.DecodeString(tc.in)
		r := NewReader(b)
		_ = r.Varint()
		if !errors.Is(r.Err(), tc.want) {
			t.Errorf("%q: err %v, want %v", tc.in, r.Err(), tc.want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	long := bytes.Repeat([]byte{7}, 20000)
	var w Writer
	w.U8(1)
	w.U16(0x0203)
	w.U32(0x04050607)
	w.U64(0x08090a0b0c0d0e0f)
	w.Opaque([]byte("hi"))
	w.Opaque(long)
	w.Vector(func(w *Writer) {
		w.Opaque(nil)
		w.Vector(func(w *Writer) { w.Raw(long[:100]) })
		w.String("x")
	})
	w.Optional(true, func(w *Writer) { w.U16(9) })
	w.Optional(false, nil)
	w.Bool(true)
	if w.Err() != nil {
		t.Fatal(w.Err())
	}
	r := NewReader(w.Bytes())
	if r.U8() != 1 || r.U16() != 0x0203 || r.U32() != 0x04050607 || r.U64() != 0x08090a0b0c0d0e0f {
		t.Fatal("ints")
	}
	if string(r.Opaque()) != "hi" || !bytes.Equal(r.Opaque(), long) {
		t.Fatal("opaque")
	}
	var elems int
	r.Vector(func(r *Reader) {
		switch elems {
		case 0:
			if len(r.Opaque()) != 0 {
				t.Error("empty opaque")
			}
		case 1:
			sub := r.Sub()
			if !bytes.Equal(sub.Raw(100), long[:100]) || sub.Done() != nil {
				t.Error("nested")
			}
		case 2:
			if r.String() != "x" {
				t.Error("string")
			}
		}
		elems++
	})
	if elems != 3 {
		t.Fatalf("elements %d", elems)
	}
	if !r.Optional() || r.U16() != 9 || r.Optional() || !r.Bool() {
		t.Fatal("optional")
	}
	if err := r.Done(); err != nil {
		t.Fatal(err)
	}
}

func TestReaderErrors(t *testing.T) {
	r := NewReader([]byte{0x02, 0xff})
	r.Vector(func(r *Reader) { r.U16() })
	if !errors.Is(r.Err(), ErrTruncated) {
		t.Fatalf("vector past end: %v", r.Err())
	}
	r = NewReader([]byte{0x01, 0xff, 0x00})
	r.Vector(func(r *Reader) { r.U8() })
	if !errors.Is(r.Done(), ErrTrailing) {
		t.Fatalf("trailing: %v", r.Err())
	}
	r = NewReader([]byte{0x02})
	if r.Bool(); !errors.Is(r.Err(), ErrInvalidBool) {
		t.Fatalf("bool: %v", r.Err())
	}
	r = NewReader([]byte{0x01, 0x00})
	r.Vector(func(r *Reader) {})
	if !errors.Is(r.Err(), ErrNoProgress) {
		t.Fatalf("no progress: %v", r.Err())
	}
	// Inner element overrunning its vector body even though the outer input has bytes.
	r = NewReader([]byte{0x01, 0x05, 1, 2, 3, 4, 5})
	r.Vector(func(r *Reader) { r.Opaque() })
	if !errors.Is(r.Err(), ErrTruncated) {
		t.Fatalf("inner overrun: %v", r.Err())
	}
	// Fail propagates to parents.
	r = NewReader([]byte{0x01, 0x00})
	sentinel := errors.New("bad enum")
	r.Vector(func(r *Reader) { r.U8(); r.Fail(sentinel) })
	if !errors.Is(r.Err(), sentinel) {
		t.Fatalf("fail: %v", r.Err())
	}
}

func TestVectorPrefixWidths(t *testing.T) {
	for _, n := range []int{0, 63, 64, 16383, 16384} {
		var w Writer
		w.Vector(func(w *Writer) { w.Raw(make([]byte, n)) })
		want := AppendVarint(nil, uint64(n))
		if !bytes.Equal(w.Bytes()[:len(want)], want) || w.Len() != len(want)+n {
			t.Fatalf("n=%d: prefix %x", n, w.Bytes()[:4])
		}
	}
}

func BenchmarkWriteVector(b *testing.B) {
	buf := make([]byte, 0, 4096)
	payload := make([]byte, 100)
	b.ReportAllocs()
	for b.Loop() {
		w := NewWriter(buf)
		w.Vector(func(w *Writer) {
			for range 10 {
				w.Opaque(payload)
			}
		})
		buf = w.Bytes()
	}
}

func TestWriterTooLong(t *testing.T) {
	var w Writer
	w.Varint(MaxVarint)
	if w.Err() != nil {
		t.Fatal(w.Err())
	}
	w.Varint(MaxVarint + 1)
	if !errors.Is(w.Err(), ErrTooLong) {
		t.Fatalf("err %v", w.Err())
	}
	if VarintLen(MaxVarint+1) != 0 {
		t.Fatal("VarintLen")
	}
}

// TestReaderNeverPanicsOnPrefixes decodes every prefix of a valid encoding:
// each must fail with ErrTruncated and none may panic.
func TestReaderNeverPanicsOnPrefixes(t *testing.T) {
	var w Writer
	w.U32(7)
	w.Vector(func(w *Writer) { w.Opaque(make([]byte, 70)); w.U64(1) })
	w.Optional(true, func(w *Writer) { w.Opaque([]byte("x")) })
	full := w.Bytes()
	for i := 0; i < len(full); i++ {
		r := NewReader(full[:i])
		r.U32()
		r.Vector(func(r *Reader) { r.Opaque(); r.U64() })
		if r.Optional() {
			r.Opaque()
		}
		if !errors.Is(r.Done(), ErrTruncated) {
			t.Fatalf("prefix %d: %v", i, r.Err())
		}
	}
}
