package wire

import (
	"crypto/ed25519"
	"fmt"

	"weald/backend/internal/codec"
)

// Frames of the recovery-wrap deletion (spec/lifecycle.md "Removing a
// person", step 4): the second deletion path beside drop_before.
const (
	FrameWrapsDelete  FrameType = 0x52 // → WrapsDeleted
	FrameWrapsDeleted FrameType = 0x53
)

// LabelWrapsDelete is the label of a WrapsDelete signature.
const LabelWrapsDelete = "wraps-delete"

// MaxWrapTags bounds the tags of one WrapsDelete.
const MaxWrapTags = 1024

// CodeWrapsNotAdmin refuses a WrapsDelete not signed by an admin device of
// the current access set.
const CodeWrapsNotAdmin Code = "wraps/not_admin"

// WrapsDelete asks the relay to delete the recovery.wrap envelopes of one
// group whose blinded tag (the ct's bytes 1..33, docs/protocol/groups.md
// "Recovery wraps") is one of tags. Only members of an epoch can compute
// its tags, and only an admin device of the current access set may sign
// the instruction:
//
//	struct {
//	    opaque workspace[32];
//	    opaque group[32];
//	    opaque tags[32]<V>;        // at most 1024
//	    opaque device_key<V>;      // 32 bytes: the signing admin device
//	    opaque signature<V>;       // Sign(device_key, "wraps-delete", encoding without signature)
//	} WrapsDelete;
type WrapsDelete struct {
	Workspace ID
	Group     ID
	Tags      []ID
	DeviceKey []byte
	Signature []byte
}

func (d *WrapsDelete) encodeTBS(w *writer) {
	w.Array32(d.Workspace)
	w.Array32(d.Group)
	w.Vector(func(w *writer) {
		for _, t := range d.Tags {
			w.Array32(t)
		}
	})
	w.Opaque(d.DeviceKey)
}

// TBS returns the bytes the signature covers.
func (d *WrapsDelete) TBS() []byte { var w writer; d.encodeTBS(&w); return w.Bytes() }

func (d *WrapsDelete) encode(w *writer) {
	d.encodeTBS(w)
	w.Opaque(d.Signature)
}

// Sign sets DeviceKey and signs d.
func (d *WrapsDelete) Sign(priv ed25519.PrivateKey) {
	d.DeviceKey = append([]byte(nil), priv.Public().(ed25519.PublicKey)...)
	d.Signature = Sign(priv, LabelWrapsDelete, d.TBS())
}

// VerifySignature checks the signature under d.DeviceKey.
func (d *WrapsDelete) VerifySignature() error {
	return Verify(d.DeviceKey, LabelWrapsDelete, d.TBS(), d.Signature)
}

func decodeWrapsDelete(r *reader) Body {
	d := &WrapsDelete{Workspace: ID(r.Array32()), Group: ID(r.Array32())}
	list(r, func(r *reader) {
		if len(d.Tags) >= MaxWrapTags {
			fail(r, "more than %d tags", MaxWrapTags)
			return
		}
		d.Tags = append(d.Tags, ID(r.Array32()))
	})
	d.DeviceKey = fixed(r, ed25519.PublicKeySize, "device_key")
	d.Signature = fixed(r, ed25519.SignatureSize, "signature")
	return d
}

// DecodeWrapsDelete decodes a WrapsDelete body.
func DecodeWrapsDelete(b []byte) (WrapsDelete, error) {
	r := codec.NewReader(b)
	d := decodeWrapsDelete(r).(*WrapsDelete)
	if err := done(r); err != nil {
		return WrapsDelete{}, fmt.Errorf("decode wraps_delete: %w", err)
	}
	return *d, nil
}

// WrapsDeleted answers WrapsDelete: struct { opaque group[32]; uint64
// envelopes; uint64 bytes; }.
type WrapsDeleted struct {
	Group     ID
	Envelopes uint64
	Bytes     uint64
}

func (d *WrapsDeleted) encode(w *writer) {
	w.Array32(d.Group)
	w.U64(d.Envelopes)
	w.U64(d.Bytes)
}

func (*WrapsDelete) FrameType() FrameType  { return FrameWrapsDelete }
func (*WrapsDeleted) FrameType() FrameType { return FrameWrapsDeleted }

// WrapTag returns the blinded tag of a recovery.wrap ct (version byte 1,
// then the 32-byte tag), or false for a ct too short to carry one.
func WrapTag(ct []byte) (ID, bool) {
	if len(ct) < 33 || ct[0] != 1 {
		return ID{}, false
	}
	return ID(ct[1:33]), true
}

func init() {
	bodyDecoders[FrameWrapsDelete] = decodeWrapsDelete
	bodyDecoders[FrameWrapsDeleted] = func(r *reader) Body {
		return &WrapsDeleted{Group: ID(r.Array32()), Envelopes: r.U64(), Bytes: r.U64()}
	}
}

// CodeWrapsNotRosterAdmin refuses a WrapsDelete whose signer the roster
// the relay folds does not hold as a live admin device (removed, demoted or
// on probation), though the current access set may still list it as one.
const CodeWrapsNotRosterAdmin Code = "wraps/not_roster_admin"
