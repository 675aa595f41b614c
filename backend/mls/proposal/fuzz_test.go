package proposal

import (
	"bytes"
	"testing"

	"weald/backend/mls/internal/mlstest"
)

func seedMessages(f *testing.F, pick func(c messagesCase) [][]byte) {
	var cases []messagesCase
	mlstest.Load(f, "messages.json", &cases)
	for i, c := range cases {
		if i >= 20 {
			break
		}
		for _, b := range pick(c) {
			f.Add(b)
		}
	}
}

// FuzzProposal: decoding never panics and what decodes re-encodes to the
// same bytes.
func FuzzProposal(f *testing.F) {
	seedMessages(f, func(c messagesCase) [][]byte {
		var out [][]byte
		for typ, b := range map[Type][]byte{TypeAdd: c.Add, TypeUpdate: c.Update, TypeRemove: c.Remove,
			TypePreSharedKey: c.PSK, TypeReInit: c.ReInit, TypeExternalInit: c.ExtIn, TypeGroupContextExtensions: c.GCE} {
			out = append(out, append([]byte{0, byte(typ)}, b...))
		}
		return out
	})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Decode(b)
		if err != nil {
			return
		}
		if !bytes.Equal(p.Bytes(), b) {
			t.Fatalf("re-encoding differs")
		}
	})
}

// FuzzCommit: decoding never panics and what decodes re-encodes to the same
// bytes.
func FuzzCommit(f *testing.F) {
	seedMessages(f, func(c messagesCase) [][]byte { return [][]byte{c.Commit} })
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeCommit(b)
		if err != nil {
			return
		}
		if !bytes.Equal(c.Bytes(), b) {
			t.Fatalf("re-encoding differs")
		}
	})
}
