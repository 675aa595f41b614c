package keyschedule

import (
	"fmt"

	"weald/backend/errcode"
	"weald/backend/internal/codec"
	"weald/backend/mls/suite"
)

// PSKType is RFC 9420 §8.4 PSKType.
type PSKType uint8

// PSK types.
const (
	PSKExternal   PSKType = 1
	PSKResumption PSKType = 2
)

// ResumptionPSKUsage is RFC 9420 §8.4 ResumptionPSKUsage.
type ResumptionPSKUsage uint8

// Resumption PSK usages.
const (
	UsageApplication ResumptionPSKUsage = 1
	UsageReinit      ResumptionPSKUsage = 2
	UsageBranch      ResumptionPSKUsage = 3
)

// ErrBadPSK is returned for an invalid PreSharedKeyID or PSK list.
var ErrBadPSK = errcode.New("mls/keyschedule/bad_psk", "a pre-shared key identifier is invalid")

// PreSharedKeyID is RFC 9420 §8.4:
//
//	struct {
//	  PSKType psktype;
//	  select (PreSharedKeyID.psktype) {
//	    case external:   opaque psk_id<V>;
//	    case resumption: ResumptionPSKUsage usage; opaque psk_group_id<V>; uint64 psk_epoch;
//	  };
//	  opaque psk_nonce<V>;
//	} PreSharedKeyID;
type PreSharedKeyID struct {
	Type PSKType
	// External
	PSKID []byte
	// Resumption
	Usage      ResumptionPSKUsage
	PSKGroupID []byte
	PSKEpoch   uint64

	Nonce []byte
}

// Encode writes the encoding of p.
func (p *PreSharedKeyID) Encode(w *codec.Writer) {
	w.U8(uint8(p.Type))
	switch p.Type {
	case PSKExternal:
		w.Opaque(p.PSKID)
	case PSKResumption:
		w.U8(uint8(p.Usage))
		w.Opaque(p.PSKGroupID)
		w.U64(p.PSKEpoch)
	}
	w.Opaque(p.Nonce)
}

// DecodePreSharedKeyID reads a PreSharedKeyID, rejecting unknown
// PSK types and resumption usages.
func DecodePreSharedKeyID(r *codec.Reader) PreSharedKeyID {
	var p PreSharedKeyID
	p.Type = PSKType(r.U8())
	switch p.Type {
	case PSKExternal:
		p.PSKID = r.OpaqueCopy()
	case PSKResumption:
		p.Usage = ResumptionPSKUsage(r.U8())
		p.PSKGroupID = r.OpaqueCopy()
		p.PSKEpoch = r.U64()
		if r.Err() == nil && (p.Usage < UsageApplication || p.Usage > UsageBranch) {
			r.Fail(fmt.Errorf("%w: resumption usage %d", ErrBadPSK, p.Usage))
		}
	default:
		if r.Err() == nil {
			r.Fail(fmt.Errorf("%w: psk type %d", ErrBadPSK, p.Type))
		}
	}
	p.Nonce = r.OpaqueCopy()
	return p
}

// Validate checks the §8.4 rule that psk_nonce is KDF.Nh bytes long.
func (p *PreSharedKeyID) Validate(s *suite.Suite) error {
	if len(p.Nonce) != s.Nh() {
		return fmt.Errorf("%w: psk_nonce has %d bytes, want %d", ErrBadPSK, len(p.Nonce), s.Nh())
	}
	return nil
}

// PSK is one pre-shared key with its identifier.
type PSK struct {
	ID     PreSharedKeyID
	Secret []byte
}

// PSKSecret combines psks in order into psk_secret (RFC 9420 §8.4):
//
//	psk_extracted_[i] = KDF.Extract(0, psk_[i])
//	psk_input_[i]     = ExpandWithLabel(psk_extracted_[i], "derived psk", PSKLabel, KDF.Nh)
//	psk_secret_[0]    = 0
//	psk_secret_[i]    = KDF.Extract(psk_input_[i-1], psk_secret_[i-1])
//	struct { PreSharedKeyID id; uint16 index; uint16 count; } PSKLabel;
//
// With no PSKs it returns the all-zero vector of length Nh.
func PSKSecret(s *suite.Suite, psks []PSK) ([]byte, error) {
	if len(psks) > 0xffff {
		return nil, ErrBadPSK
	}
	secret := make([]byte, s.Nh())
	zero := make([]byte, s.Nh())
	for i, p := range psks {
		w := codec.NewWriter(make([]byte, 0, 64))
		p.ID.Encode(w)
		w.U16(uint16(i))
		w.U16(uint16(len(psks)))
		input, err := s.ExpandWithLabel(s.Extract(zero, p.Secret), "derived psk", w.Bytes(), s.Nh())
		if err != nil {
			return nil, err
		}
		secret = s.Extract(input, secret)
	}
	return secret, nil
}
