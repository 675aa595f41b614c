package groups

import (
	"fmt"
	"io"

	"weald/backend/internal/codec"
)

// BundleKind says which standing bundle a SealedBundle is.
type BundleKind uint8

// The two standing bundles (envelope kinds 0x0060 and 0x0061).
const (
	BundleGroupInfo BundleKind = 1 // groupinfo.publish
	BundleHistory   BundleKind = 2 // history.publish
	// BundleMemberHistory is a history.publish sealed under the group's own
	// MemberHistorySecret instead of an enrolment secret; its RootEpoch
	// field holds the group's epoch.
	BundleMemberHistory BundleKind = 3
)

func (k BundleKind) label() string {
	switch k {
	case BundleHistory:
		return "history.publish"
	case BundleMemberHistory:
		return "history.member"
	}
	return "groupinfo.publish"
}

// SealedBundle is the ct of a groupinfo.publish or history.publish envelope:
// struct { uint8 version = 1; uint64 root_epoch; opaque nonce[12]; opaque ciphertext<V>; }.
type SealedBundle struct {
	RootEpoch  uint64
	Nonce      [12]byte
	Ciphertext []byte
}

// Encode returns the canonical encoding.
func (b *SealedBundle) Encode() []byte {
	var w codec.Writer
	w.U8(1)
	w.U64(b.RootEpoch)
	w.Raw(b.Nonce[:])
	w.Opaque(b.Ciphertext)
	return w.Bytes()
}

// DecodeSealedBundle parses a SealedBundle.
func DecodeSealedBundle(data []byte) (SealedBundle, error) {
	r := codec.NewReader(data)
	var b SealedBundle
	v := r.U8()
	b.RootEpoch = r.U64()
	copy(b.Nonce[:], r.Raw(12))
	b.Ciphertext = r.OpaqueMax(maxBlob)
	if err := r.Done(); err != nil {
		return SealedBundle{}, fmt.Errorf("%w: sealed bundle: %v", ErrDecode, err)
	}
	if v != 1 {
		return SealedBundle{}, fmt.Errorf("%w: sealed bundle version %d", ErrVersion, v)
	}
	return b, nil
}

func bundleAAD(kind BundleKind, group [32]byte, rootEpoch uint64) []byte {
	return labelled(kind.label(), func(w *codec.Writer) { w.Raw(group[:]); w.U64(rootEpoch) })
}

// SealBundle seals plain for child group under enrolment_key(rootEpoch, group).
func SealBundle(rand io.Reader, kind BundleKind, enrolmentSecret []byte, rootEpoch uint64, group [32]byte, plain []byte) (SealedBundle, error) {
	n, ct, err := seal(rand, EnrolmentKey(enrolmentSecret, group), bundleAAD(kind, group, rootEpoch), plain)
	if err != nil {
		return SealedBundle{}, err
	}
	return SealedBundle{RootEpoch: rootEpoch, Nonce: n, Ciphertext: ct}, nil
}

// OpenBundle opens b with the enrolment secret of b.RootEpoch.
func OpenBundle(kind BundleKind, enrolmentSecret []byte, group [32]byte, b SealedBundle) ([]byte, error) {
	return open(EnrolmentKey(enrolmentSecret, group), b.Nonce, bundleAAD(kind, group, b.RootEpoch), b.Ciphertext)
}

// GroupInfoPlain is the plaintext of a groupinfo.publish:
// struct { uint64 epoch; opaque group_info<V>; }.
type GroupInfoPlain struct {
	Epoch     uint64
	GroupInfo []byte // MLSMessage(GroupInfo) with external_pub and ratchet_tree
}

// Encode returns the canonical encoding.
func (p *GroupInfoPlain) Encode() []byte {
	var w codec.Writer
	w.U64(p.Epoch)
	w.Opaque(p.GroupInfo)
	return w.Bytes()
}

// DecodeGroupInfoPlain parses a GroupInfoPlain.
func DecodeGroupInfoPlain(data []byte) (GroupInfoPlain, error) {
	r := codec.NewReader(data)
	p := GroupInfoPlain{Epoch: r.U64(), GroupInfo: r.OpaqueMax(maxBlob)}
	if err := r.Done(); err != nil {
		return GroupInfoPlain{}, fmt.Errorf("%w: group info bundle: %v", ErrDecode, err)
	}
	return p, nil
}

// HistoryPlain is the plaintext of a history.publish:
// struct { uint64 epoch; HistoryKey keys<V>; } with
// struct { opaque id[32]; opaque key[32]; } HistoryKey.
type HistoryPlain struct {
	Epoch uint64
	Keys  []HistoryKey
}

func encodeKeys(w *codec.Writer, keys []HistoryKey) {
	w.Vector(func(w *codec.Writer) {
		for _, k := range keys {
			w.Raw(k.ID[:])
			w.Raw(k.Key)
		}
	})
}

// maxHistoryKeys bounds a key list (one per Remove over a group's life).
const maxHistoryKeys = 1 << 16

func decodeKeys(r *codec.Reader) []HistoryKey {
	var out []HistoryKey
	r.VectorMax(maxHistoryKeys, func(r *codec.Reader) {
		id := r.Array32()
		key := r.Raw(32)
		if r.Err() != nil {
			return
		}
		k := HistoryKeyOf(key)
		if k.ID != id {
			r.Fail(fmt.Errorf("%w: history key id does not match its key", ErrDecode))
			return
		}
		out = append(out, k)
	})
	return out
}

// Encode returns the canonical encoding.
func (p *HistoryPlain) Encode() []byte {
	var w codec.Writer
	w.U64(p.Epoch)
	encodeKeys(&w, p.Keys)
	return w.Bytes()
}

// DecodeHistoryPlain parses a HistoryPlain; every key id is checked.
func DecodeHistoryPlain(data []byte) (HistoryPlain, error) {
	r := codec.NewReader(data)
	p := HistoryPlain{Epoch: r.U64()}
	p.Keys = decodeKeys(r)
	if err := r.Done(); err != nil {
		return HistoryPlain{}, fmt.Errorf("%w: history bundle: %v", ErrDecode, err)
	}
	return p, nil
}
