package mls

import (
	"encoding/binary"
	"fmt"

	"weald/backend/mls/tree"
)

// WireFormat is RFC 9420 §6 WireFormat.
type WireFormat uint16

// Wire formats (RFC 9420 §17.2).
const (
	wirePublicMessage  WireFormat = 1
	wirePrivateMessage WireFormat = 2
	wireWelcome        WireFormat = 3
	wireGroupInfo      WireFormat = 4
	wireKeyPackage     WireFormat = 5
)

// encodeMLSMessage frames body as an MLSMessage (RFC 9420 §6):
// version mls10, the wire format, then the body.
func encodeMLSMessage(wf WireFormat, body []byte) []byte {
	out := make([]byte, 4, 4+len(body))
	binary.BigEndian.PutUint16(out, tree.ProtocolVersionMLS10)
	binary.BigEndian.PutUint16(out[2:], uint16(wf))
	return append(out, body...)
}

// splitMLSMessage returns the wire format and body of an MLSMessage; the
// body's decoder must consume it exactly.
func splitMLSMessage(b []byte) (WireFormat, []byte, error) {
	if len(b) < 4 {
		return 0, nil, fmt.Errorf("%w: message of %d bytes", ErrDecode, len(b))
	}
	if v := binary.BigEndian.Uint16(b); v != tree.ProtocolVersionMLS10 {
		return 0, nil, fmt.Errorf("%w: protocol version %d", ErrUnsupported, v)
	}
	wf := WireFormat(binary.BigEndian.Uint16(b[2:]))
	switch wf {
	case wirePublicMessage, wirePrivateMessage, wireWelcome, wireGroupInfo, wireKeyPackage:
	default:
		return 0, nil, fmt.Errorf("%w: wire format %d", ErrWireFormat, wf)
	}
	return wf, b[4:], nil
}

// expectMLSMessage returns the body of an MLSMessage of wire format wf.
func expectMLSMessage(b []byte, wf WireFormat) ([]byte, error) {
	got, body, err := splitMLSMessage(b)
	if err != nil {
		return nil, err
	}
	if got != wf {
		return nil, fmt.Errorf("%w: got wire format %d, want %d", ErrWireFormat, got, wf)
	}
	return body, nil
}
