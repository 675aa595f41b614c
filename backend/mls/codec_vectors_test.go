package mls

import (
	"bytes"
	"testing"

	"weald/backend/internal/codec"
	"weald/backend/mls/internal/mlstest"
)

// TestDeserializationVectors checks the varint of backend/internal/codec
// against RFC 9420's deserialization vectors (§2.1.2).
func TestDeserializationVectors(t *testing.T) {
	var cases []struct {
		Header mlstest.HexBytes `json:"vlbytes_header"`
		Length uint64           `json:"length"`
	}
	mlstest.Load(t, "deserialization.json", &cases)
	var c mlstest.Counter
	for i, tc := range cases {
		t.Run(mlstest.Case(i), func(t *testing.T) {
			r := codec.NewReader(tc.Header)
			n := r.Varint()
			if err := r.Done(); err != nil {
				t.Fatalf("header %x: %v", tc.Header, err)
			}
			if n != tc.Length {
				t.Fatalf("header %x: got %d want %d", tc.Header, n, tc.Length)
			}
			if got := codec.AppendVarint(nil, tc.Length); !bytes.Equal(got, tc.Header) {
				t.Fatalf("length %d: encoded %x want %x", tc.Length, got, tc.Header)
			}
			c.Ran++
		})
	}
	c.Report(t, "deserialization.json")
}
