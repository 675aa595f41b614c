package roster

import (
	"bytes"
	"testing"
)

// FuzzDecode: Decode never panics; an accepted encoding re-encodes to the
// same bytes; applying it to a real state never panics and, when rejected,
// leaves the head where it was.
func FuzzDecode(f *testing.F) {
	w := chainWorld(f)
	for _, b := range w.ops {
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{1})
	base := w.ops
	f.Fuzz(func(t *testing.T, b []byte) {
		op, err := Decode(b)
		if err != nil {
			return
		}
		tbs, err := op.tbs()
		if err != nil {
			t.Fatalf("decoded operation does not encode: %v", err)
		}
		if !bytes.HasPrefix(b, tbs) {
			t.Fatal("decoded operation does not re-encode to its bytes")
		}
		st, err := Validate(base[:4], Options{})
		if err != nil {
			t.Fatal(err)
		}
		head := st.Head()
		if err := st.Apply(op); err != nil && st.Head() != head {
			t.Fatal("rejected operation moved the head")
		}
	})
}
