package codec

// LabelPrefix starts the label of every Weald signature (conventions.md
// "Signatures"), as "MLS 1.0 " starts MLS's (RFC 9420 §5.1.2).
const LabelPrefix = "weald 1 "

// SignedContent returns the bytes a Weald Ed25519 signature covers:
//
//	struct { opaque label<V> = "weald 1 " + label; opaque content<V>; }
//
// It is the one place that builds them; identity and wire sign and verify
// through it. content longer than 2^30-1 bytes cannot be encoded and gives nil.
func SignedContent(label string, content []byte) []byte {
	w := NewWriter(make([]byte, 0, len(LabelPrefix)+len(label)+len(content)+8))
	w.String(LabelPrefix + label)
	w.Opaque(content)
	if w.Err() != nil {
		return nil
	}
	return w.Bytes()
}
