package proposal

import (
	"fmt"

	"weald/backend/mls/codec"
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
	UsageReInit      ResumptionPSKUsage = 2
	UsageBranch      ResumptionPSKUsage = 3
)

// PreSharedKeyID is RFC 9420 §8.4 PreSharedKeyID.
type PreSharedKeyID struct {
	Type PSKType
	// External.
	PSKID []byte
	// Resumption.
	Usage      ResumptionPSKUsage
	PSKGroupID []byte
	PSKEpoch   uint64

	Nonce []byte
}

// Marshal writes the PSK id.
func (id *PreSharedKeyID) Marshal(w *codec.Writer) {
	w.U8(uint8(id.Type))
	switch id.Type {
	case PSKExternal:
		w.Opaque(id.PSKID)
	case PSKResumption:
		w.U8(uint8(id.Usage))
		w.Opaque(id.PSKGroupID)
		w.U64(id.PSKEpoch)
	}
	w.Opaque(id.Nonce)
}

// Unmarshal reads a PSK id.
func (id *PreSharedKeyID) Unmarshal(r *codec.Reader) {
	*id = PreSharedKeyID{Type: PSKType(r.U8())}
	switch id.Type {
	case PSKExternal:
		id.PSKID = r.OpaqueCopy()
	case PSKResumption:
		id.Usage = ResumptionPSKUsage(r.U8())
		id.PSKGroupID = r.OpaqueCopy()
		id.PSKEpoch = r.U64()
		if (id.Usage < UsageApplication || id.Usage > UsageBranch) && r.Err() == nil {
			r.Fail(fmt.Errorf("%w: resumption psk usage %d", ErrDecode, id.Usage))
		}
	default:
		if r.Err() == nil {
			r.Fail(fmt.Errorf("%w: psk type %d", ErrDecode, id.Type))
		}
	}
	id.Nonce = r.OpaqueCopy()
}
