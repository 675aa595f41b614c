package wire

import (
	"crypto/ed25519"
	"fmt"
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
	w.id(d.Workspace)
	w.id(d.Group)
	w.vector(func(w *writer) {
		for _, t := range d.Tags {
			w.id(t)
		}
	})
	w.opaque(d.DeviceKey)
}

// TBS returns the bytes the signature covers.
func (d *WrapsDelete) TBS() []byte { var w writer; d.encodeTBS(&w); return w.b }

func (d *WrapsDelete) encode(w *writer) {
	d.encodeTBS(w)
	w.opaque(d.Signature)
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
	d := &WrapsDelete{Workspace: r.id(), Group: r.id()}
	r.list(func(r *reader) {
		if len(d.Tags) >= MaxWrapTags {
			r.fail("more than %d tags", MaxWrapTags)
			return
		}
		d.Tags = append(d.Tags, r.id())
	})
	d.DeviceKey = r.fixed(ed25519.PublicKeySize, "device_key")
	d.Signature = r.fixed(ed25519.SignatureSize, "signature")
	return d
}

// DecodeWrapsDelete decodes a WrapsDelete body.
func DecodeWrapsDelete(b []byte) (WrapsDelete, error) {
	r := newReader(b)
	d := decodeWrapsDelete(r).(*WrapsDelete)
	if err := r.done(); err != nil {
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
	w.id(d.Group)
	w.u64(d.Envelopes)
	w.u64(d.Bytes)
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
		return &WrapsDeleted{Group: r.id(), Envelopes: r.u64(), Bytes: r.u64()}
	}
}
