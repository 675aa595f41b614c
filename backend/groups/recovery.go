package groups

import (
	"fmt"
	"io"

	"weald/backend/internal/codec"
)

// LabelRecoveryTag is the exporter label of a recovery wrap's blinded tag.
const LabelRecoveryTag = "weald/recovery-tag"

const labelRecoveryWrap = "weald recovery.wrap"

// RecoveryTag is MLS-Exporter(epoch, "weald/recovery-tag", recovery_pub, 32):
// the blinded index of a recovery wrap that only members of that epoch can
// compute (design/gaps.md "Recovery wraps").
func RecoveryTag(g Exporter, recoveryPub []byte) ([32]byte, error) {
	var tag [32]byte
	b, err := g.Export(LabelRecoveryTag, recoveryPub, 32)
	if err != nil {
		return tag, err
	}
	copy(tag[:], b)
	return tag, nil
}

// RecoveryWrap is the ct of a recovery.wrap envelope (kind 0x0040) in the
// group's log: the group's state sealed to a user's recovery HPKE key.
//
//	struct { uint8 version = 1; opaque tag[32]; uint64 epoch; opaque kem_output<V>; opaque ciphertext<V>; }
type RecoveryWrap struct {
	Tag        [32]byte
	Epoch      uint64
	KEMOutput  []byte
	Ciphertext []byte
}

// RecoveryPlain is what a recovery wrap carries:
// struct { opaque group_info<V>; uint64 epoch; HistoryKey history<V>; }.
type RecoveryPlain struct {
	GroupInfo []byte
	Epoch     uint64
	History   []HistoryKey
}

// Encode returns the canonical encoding.
func (w *RecoveryWrap) Encode() []byte {
	var c codec.Writer
	c.U8(1)
	c.Raw(w.Tag[:])
	c.U64(w.Epoch)
	c.Opaque(w.KEMOutput)
	c.Opaque(w.Ciphertext)
	return c.Bytes()
}

// DecodeRecoveryWrap parses a RecoveryWrap.
func DecodeRecoveryWrap(data []byte) (RecoveryWrap, error) {
	r := codec.NewReader(data)
	var w RecoveryWrap
	v := r.U8()
	w.Tag = r.Array32()
	w.Epoch = r.U64()
	w.KEMOutput = r.OpaqueMax(256)
	w.Ciphertext = r.OpaqueMax(maxBlob)
	if err := r.Done(); err != nil {
		return RecoveryWrap{}, fmt.Errorf("%w: recovery wrap: %v", ErrDecode, err)
	}
	if v != 1 {
		return RecoveryWrap{}, fmt.Errorf("%w: recovery wrap version %d", ErrVersion, v)
	}
	return w, nil
}

func recoveryContext(group [32]byte, tag [32]byte, epoch uint64) []byte {
	var w codec.Writer
	w.Raw(group[:])
	w.Raw(tag[:])
	w.U64(epoch)
	return w.Bytes()
}

// SealRecoveryWrap seals p for group to the recovery HPKE public key
// (EncryptWithLabel, RFC 9420 §5.1.3, suite 1).
func SealRecoveryWrap(rand io.Reader, hpkePub []byte, group, tag [32]byte, p *RecoveryPlain) (*RecoveryWrap, error) {
	var w codec.Writer
	w.Opaque(p.GroupInfo)
	w.U64(p.Epoch)
	encodeKeys(&w, p.History)
	kem, ct, err := suite1().EncryptWithLabel(rand, hpkePub, labelRecoveryWrap, recoveryContext(group, tag, p.Epoch), w.Bytes())
	if err != nil {
		return nil, err
	}
	return &RecoveryWrap{Tag: tag, Epoch: p.Epoch, KEMOutput: kem, Ciphertext: ct}, nil
}

// OpenRecoveryWrap opens a wrap of group with the recovery HPKE private key
// (its RFC 9180 serialisation).
func OpenRecoveryWrap(hpkePriv []byte, group [32]byte, w *RecoveryWrap) (*RecoveryPlain, error) {
	pt, err := suite1().DecryptWithLabel(hpkePriv, labelRecoveryWrap, recoveryContext(group, w.Tag, w.Epoch), w.KEMOutput, w.Ciphertext)
	if err != nil {
		return nil, ErrOpen
	}
	r := codec.NewReader(pt)
	p := &RecoveryPlain{GroupInfo: r.OpaqueMax(maxBlob), Epoch: r.U64()}
	p.History = decodeKeys(r)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: recovery wrap contents: %v", ErrDecode, err)
	}
	if p.Epoch != w.Epoch {
		return nil, fmt.Errorf("%w: recovery wrap epoch inside does not match", ErrDecode)
	}
	return p, nil
}
