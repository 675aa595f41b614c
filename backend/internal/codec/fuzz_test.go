package codec

import (
	"bytes"
	"testing"
)

// FuzzReader decodes arbitrary bytes as a generic nested structure
// (a vector of tagged elements: opaque, nested vector, optional uint32,
// bounded opaque, bounded vector, 32-byte array) and,
// when decoding succeeds, checks that re-encoding gives the same bytes
// (the minimal-encoding rule makes the encoding canonical).
func FuzzReader(f *testing.F) {
	var w Writer
	w.Vector(func(w *Writer) {
		w.U8(0)
		w.Opaque([]byte("abc"))
		w.U8(1)
		w.Vector(func(w *Writer) { w.U8(2); w.Optional(true, func(w *Writer) { w.U32(5) }) })
	})
	f.Add(w.Bytes())
	f.Add([]byte{0x40, 0x01})
	f.Add([]byte{0xc0})
	f.Add([]byte{0x09, 3, 2, 'h', 'i', 4, 3, 1, 2, 3})
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewReader(in)
		var out Writer
		decodeGeneric(r, &out, 0)
		if r.Done() != nil {
			return
		}
		if !bytes.Equal(out.Bytes(), in) {
			t.Fatalf("re-encoding differs:\n in %x\nout %x", in, out.Bytes())
		}
	})
}

func decodeGeneric(r *Reader, w *Writer, depth int) {
	w.Vector(func(w *Writer) {
		r.Vector(func(r *Reader) {
			tag := r.U8()
			w.U8(tag)
			switch tag {
			case 0:
				w.Opaque(r.Opaque())
			case 1:
				if depth < 8 {
					decodeGeneric(r, w, depth+1)
				} else {
					w.Opaque(r.Opaque())
				}
			case 2:
				ok := r.Optional()
				w.Optional(ok, func(w *Writer) { w.U32(r.U32()) })
			case 3:
				w.Opaque(r.OpaqueMax(16))
			case 4:
				w.Vector(func(w *Writer) { r.VectorMax(4, func(r *Reader) { w.U8(r.U8()) }) })
			case 5:
				a := r.Array32()
				w.Raw(a[:])
			default:
				w.U16(r.U16())
			}
		})
	})
}
