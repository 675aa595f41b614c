package framing

import (
	"fmt"

	"weald/backend/internal/codec"
)

// MLSMessage is RFC 9420 §6:
//
//	struct {
//	    ProtocolVersion version = mls10;
//	    WireFormat wire_format;
//	    select (MLSMessage.wire_format) {
//	        case mls_public_message:  PublicMessage public_message;
//	        case mls_private_message: PrivateMessage private_message;
//	        case mls_welcome:         Welcome welcome;
//	        case mls_group_info:      GroupInfo group_info;
//	        case mls_key_package:     KeyPackage key_package;
//	    };
//	} MLSMessage;
//
// Public or Private is set for the first two wire formats; for the others
// Body holds the encoded Welcome, GroupInfo or KeyPackage, which extends
// to the end of the message and is decoded by its own package.
type MLSMessage struct {
	WireFormat WireFormat
	Public     *PublicMessage
	Private    *PrivateMessage
	Body       []byte
}

// Encode writes the MLSMessage.
func (m *MLSMessage) Encode(w *codec.Writer) {
	w.U16(ProtocolVersion)
	w.U16(uint16(m.WireFormat))
	switch m.WireFormat {
	case WireFormatPublicMessage:
		if m.Public != nil {
			m.Public.Encode(w)
		}
	case WireFormatPrivateMessage:
		if m.Private != nil {
			m.Private.Encode(w)
		}
	default:
		w.Raw(m.Body)
	}
}

// Bytes returns the encoding of m.
func (m *MLSMessage) Bytes() []byte {
	w := codec.NewWriter(make([]byte, 0, 512+len(m.Body)))
	m.Encode(w)
	return w.Bytes()
}

// DecodeMLSMessage decodes exactly one MLSMessage. It rejects other
// protocol versions, unknown wire formats and trailing bytes after a
// public or private message.
func DecodeMLSMessage(b []byte) (*MLSMessage, error) {
	r := codec.NewReader(b)
	v := r.U16()
	wf := WireFormat(r.U16())
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	if v != ProtocolVersion {
		return nil, fmt.Errorf("%w: version %d", ErrVersion, v)
	}
	m := &MLSMessage{WireFormat: wf}
	switch wf {
	case WireFormatPublicMessage:
		m.Public = decodePublicMessage(r)
	case WireFormatPrivateMessage:
		m.Private = decodePrivateMessage(r)
	case WireFormatWelcome, WireFormatGroupInfo, WireFormatKeyPackage:
		m.Body = append([]byte{}, r.Raw(r.Len())...)
	default:
		return nil, fmt.Errorf("%w: wire format %d", ErrDecode, wf)
	}
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	return m, nil
}
