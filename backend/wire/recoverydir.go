package wire

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"weald/backend/internal/codec"
)

// The recovery tag directory (docs/protocol/lifecycle.md "Recovery tag
// directory"; spec/lifecycle.md health row "Recovery tag directory has a
// valid current-or-fallback slot for every group the user belongs to").
// Per recovery principal (owner: the key id of its signature key) and
// group, the relay keeps one slot pointing at recovery.wrap envelopes of
// the owner's user: the newest one a device of that user named (current)
// and the one it replaced (fallback), so a person holding only the phrase
// finds the wrap of each group without trying every wrap of every log.
const (
	FrameRecoveryDirPut     FrameType = 0x56 // → OK
	FrameRecoveryDirGet     FrameType = 0x57 // → RecoveryDir
	FrameRecoveryDir        FrameType = 0x58
	FrameRecoveryDirDrop    FrameType = 0x59 // → RecoveryDirDropped
	FrameRecoveryDirDropped FrameType = 0x5A
)

// MaxDirPuts bounds the items of one RecoveryDirPut.
const MaxDirPuts = 256

// MaxDirSlots bounds the slots the relay keeps per owner: twice the 512
// live groups a workspace may have (deleted groups keep their slot until a
// drop), and what one RecoveryDir answer carries.
const MaxDirSlots = 1024

// MaxDirDropGroups bounds the groups one RecoveryDirDrop names.
const MaxDirDropGroups = 256

// LabelRecoveryDirDrop is the label of a RecoveryDirDrop signature.
const LabelRecoveryDirDrop = "recovery-dir-drop"

// Codes of the directory.
const (
	// CodeDirNotOwner refuses a write or read of a directory by a key that
	// is neither a live device of the owner's user nor (reads) the owner.
	CodeDirNotOwner Code = "recovery_dir/not_owner"
	// CodeDirNotAllowed refuses a drop signed by a key that is neither an
	// admin device of the current access set nor a live device of the
	// owner's user.
	CodeDirNotAllowed Code = "recovery_dir/not_allowed"
	// CodeDirLimit refuses a put that would give an owner a slot more than
	// MaxDirSlots.
	CodeDirLimit Code = "limit/recovery_dir"
)

// DirPut names, for owner's slot of group, the recovery.wrap at seq in the
// group's log as the slot's current entry:
// struct { opaque owner[32]; opaque group[32]; uint64 seq; }.
type DirPut struct {
	Owner ID
	Group ID
	Seq   uint64
}

// RecoveryDirPut is struct { DirPut items<V>; } (1..256), all or none.
type RecoveryDirPut struct{ Items []DirPut }

// RecoveryDirGet asks for owner's slots: struct { opaque owner[32]; }.
type RecoveryDirGet struct{ Owner ID }

// DirEntry is one entry of a slot: the wrap's seq (0: none), its epoch and
// tag as its ct carries them in the clear, and whether the relay still
// holds it (no drop or wrap deletion took it):
// struct { uint64 seq; uint64 epoch; opaque tag[32]; bool present; }.
type DirEntry struct {
	Seq     uint64
	Epoch   uint64
	Tag     ID
	Present bool
}

// DirSlot is one group's slot:
// struct { opaque group[32]; DirEntry current; DirEntry fallback; }.
type DirSlot struct {
	Group    ID
	Current  DirEntry
	Fallback DirEntry
}

// Valid reports whether the slot leads to a wrap the relay still holds.
func (s DirSlot) Valid() bool {
	return (s.Current.Seq != 0 && s.Current.Present) || (s.Fallback.Seq != 0 && s.Fallback.Present)
}

// RecoveryDir answers RecoveryDirGet:
// struct { opaque owner[32]; DirSlot slots<V>; } (≤ 1024, by group id).
type RecoveryDir struct {
	Owner ID
	Slots []DirSlot
}

// RecoveryDirDrop is the member-signed instruction that deletes owner's
// slots (of the groups named, or every one when none is):
//
//	struct {
//	    opaque workspace[32];
//	    opaque owner[32];
//	    opaque groups<V>;          // 32-byte group ids, at most 256; empty: every slot
//	    opaque device_key<V>;      // 32: the signing device
//	    opaque signature<V>;       // Sign(device_key, "recovery-dir-drop", encoding without signature)
//	} RecoveryDirDrop;
type RecoveryDirDrop struct {
	Workspace ID
	Owner     ID
	Groups    []ID
	DeviceKey []byte
	Signature []byte
}

// RecoveryDirDropped answers a drop: struct { uint64 slots; }.
type RecoveryDirDropped struct{ Slots uint64 }

func (d *RecoveryDirDrop) encodeTBS(w *writer) {
	w.Array32(d.Workspace)
	w.Array32(d.Owner)
	w.Vector(func(w *writer) {
		for _, g := range d.Groups {
			w.Array32(g)
		}
	})
	w.Opaque(d.DeviceKey)
}

// TBS returns the bytes the signature covers.
func (d *RecoveryDirDrop) TBS() []byte { var w writer; d.encodeTBS(&w); return w.Bytes() }

func (d *RecoveryDirDrop) encode(w *writer) {
	d.encodeTBS(w)
	w.Opaque(d.Signature)
}

// Encode returns the canonical encoding of the signed instruction.
func (d *RecoveryDirDrop) Encode() []byte { var w writer; d.encode(&w); return w.Bytes() }

// Hash is SHA-256 of Encode.
func (d *RecoveryDirDrop) Hash() ID { return sha256.Sum256(d.Encode()) }

// Sign sets DeviceKey and signs d.
func (d *RecoveryDirDrop) Sign(priv ed25519.PrivateKey) {
	d.DeviceKey = append([]byte(nil), priv.Public().(ed25519.PublicKey)...)
	d.Signature = Sign(priv, LabelRecoveryDirDrop, d.TBS())
}

// VerifySignature checks the signature under d.DeviceKey.
func (d *RecoveryDirDrop) VerifySignature() error {
	return Verify(d.DeviceKey, LabelRecoveryDirDrop, d.TBS(), d.Signature)
}

func decodeRecoveryDirDrop(r *reader) Body {
	d := &RecoveryDirDrop{Workspace: ID(r.Array32()), Owner: ID(r.Array32())}
	list(r, func(r *reader) {
		if len(d.Groups) >= MaxDirDropGroups {
			fail(r, "more than %d groups", MaxDirDropGroups)
			return
		}
		d.Groups = append(d.Groups, ID(r.Array32()))
	})
	d.DeviceKey = fixed(r, ed25519.PublicKeySize, "device_key")
	d.Signature = fixed(r, ed25519.SignatureSize, "signature")
	return d
}

// DecodeRecoveryDirDrop decodes a RecoveryDirDrop body.
func DecodeRecoveryDirDrop(b []byte) (RecoveryDirDrop, error) {
	r := codec.NewReader(b)
	d := decodeRecoveryDirDrop(r).(*RecoveryDirDrop)
	if err := done(r); err != nil {
		return RecoveryDirDrop{}, fmt.Errorf("decode recovery_dir_drop: %w", err)
	}
	return *d, nil
}

func (p *RecoveryDirPut) encode(w *writer) {
	w.Vector(func(w *writer) {
		for _, it := range p.Items {
			w.Array32(it.Owner)
			w.Array32(it.Group)
			w.U64(it.Seq)
		}
	})
}

func (g *RecoveryDirGet) encode(w *writer) { w.Array32(g.Owner) }

func (e *DirEntry) encode(w *writer) {
	w.U64(e.Seq)
	w.U64(e.Epoch)
	w.Array32(e.Tag)
	w.Bool(e.Present)
}

func (d *RecoveryDir) encode(w *writer) {
	w.Array32(d.Owner)
	w.Vector(func(w *writer) {
		for i := range d.Slots {
			w.Array32(d.Slots[i].Group)
			d.Slots[i].Current.encode(w)
			d.Slots[i].Fallback.encode(w)
		}
	})
}

func (d *RecoveryDirDropped) encode(w *writer) { w.U64(d.Slots) }

func (*RecoveryDirPut) FrameType() FrameType     { return FrameRecoveryDirPut }
func (*RecoveryDirGet) FrameType() FrameType     { return FrameRecoveryDirGet }
func (*RecoveryDir) FrameType() FrameType        { return FrameRecoveryDir }
func (*RecoveryDirDrop) FrameType() FrameType    { return FrameRecoveryDirDrop }
func (*RecoveryDirDropped) FrameType() FrameType { return FrameRecoveryDirDropped }

func decodeRecoveryDirPut(r *reader) Body {
	p := &RecoveryDirPut{}
	list(r, func(r *reader) {
		if len(p.Items) >= MaxDirPuts {
			fail(r, "more than %d directory puts", MaxDirPuts)
			return
		}
		p.Items = append(p.Items, DirPut{Owner: ID(r.Array32()), Group: ID(r.Array32()), Seq: r.U64()})
	})
	if len(p.Items) == 0 {
		fail(r, "a directory put names no slot")
	}
	return p
}

func decodeDirEntry(r *reader) DirEntry {
	return DirEntry{Seq: r.U64(), Epoch: r.U64(), Tag: ID(r.Array32()), Present: r.Bool()}
}

func decodeRecoveryDir(r *reader) Body {
	d := &RecoveryDir{Owner: ID(r.Array32())}
	list(r, func(r *reader) {
		if len(d.Slots) >= MaxDirSlots {
			fail(r, "more than %d directory slots", MaxDirSlots)
			return
		}
		s := DirSlot{Group: ID(r.Array32())}
		s.Current = decodeDirEntry(r)
		s.Fallback = decodeDirEntry(r)
		d.Slots = append(d.Slots, s)
	})
	return d
}

// WrapEpoch returns the epoch a recovery.wrap ct carries in the clear
// (after the version byte and the tag), or false for a ct too short.
func WrapEpoch(ct []byte) (uint64, bool) {
	if _, ok := WrapTag(ct); !ok || len(ct) < 41 {
		return 0, false
	}
	return binary.BigEndian.Uint64(ct[33:41]), true
}

func init() {
	bodyDecoders[FrameRecoveryDirPut] = decodeRecoveryDirPut
	bodyDecoders[FrameRecoveryDirGet] = func(r *reader) Body { return &RecoveryDirGet{Owner: ID(r.Array32())} }
	bodyDecoders[FrameRecoveryDir] = decodeRecoveryDir
	bodyDecoders[FrameRecoveryDirDrop] = decodeRecoveryDirDrop
	bodyDecoders[FrameRecoveryDirDropped] = func(r *reader) Body { return &RecoveryDirDropped{Slots: r.U64()} }
}
