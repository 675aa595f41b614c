package wire

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"

	"weald/backend/internal/codec"
)

// RetentionTransition publishes a group's retention signing public key for an
// MLS epoch (design/gaps.md "Groups and keys"). It travels as the ct of a
// [KindRetentionTransition] envelope:
//
//	struct {
//	    opaque group[32];
//	    uint64 epoch;          // the MLS epoch the key was derived in
//	    opaque prev_key<V>;    // the key it succeeds; empty for the chain root
//	    opaque new_key<V>;     // 32-byte Ed25519 public key
//	    opaque signer<V>;      // prev_key, or for the root a device key of the access set
//	    opaque signature<V>;   // Sign(signer, "retention-transition", encoding without signature)
//	} RetentionTransition;
//
// Two different transitions with the same prev_key (or two roots) freeze the
// group's chain: no drop is accepted for it.
type RetentionTransition struct {
	Group     ID
	Epoch     uint64
	PrevKey   []byte
	NewKey    []byte
	Signer    []byte
	Signature []byte
}

func (t *RetentionTransition) encodeTBS(w *writer) {
	w.Array32(t.Group)
	w.U64(t.Epoch)
	w.Opaque(t.PrevKey)
	w.Opaque(t.NewKey)
	w.Opaque(t.Signer)
}

// TBS returns the bytes the signature covers.
func (t *RetentionTransition) TBS() []byte { var w writer; t.encodeTBS(&w); return w.Bytes() }

// Encode returns the canonical encoding.
func (t *RetentionTransition) Encode() []byte {
	var w writer
	t.encodeTBS(&w)
	w.Opaque(t.Signature)
	return w.Bytes()
}

// IsRoot reports whether t starts a chain.
func (t *RetentionTransition) IsRoot() bool { return len(t.PrevKey) == 0 }

// Sign sets Signer to priv's public key and signs t.
func (t *RetentionTransition) Sign(priv ed25519.PrivateKey) {
	t.Signer = append([]byte(nil), priv.Public().(ed25519.PublicKey)...)
	t.Signature = Sign(priv, LabelRetentionTransition, t.TBS())
}

// VerifySignature checks the signature, and that a successor is signed by the
// key it succeeds.
func (t *RetentionTransition) VerifySignature() error {
	if !t.IsRoot() && string(t.Signer) != string(t.PrevKey) {
		return fmt.Errorf("retention transition not signed by its predecessor: %w", ErrBadSignature)
	}
	return Verify(t.Signer, LabelRetentionTransition, t.TBS(), t.Signature)
}

// DecodeRetentionTransition decodes a transition.
func DecodeRetentionTransition(b []byte) (RetentionTransition, error) {
	r := codec.NewReader(b)
	var t RetentionTransition
	t.Group = ID(r.Array32())
	t.Epoch = r.U64()
	t.PrevKey = r.OpaqueCopy()
	if len(t.PrevKey) != 0 && len(t.PrevKey) != ed25519.PublicKeySize {
		fail(r, "prev_key must be empty or 32 bytes")
	}
	t.NewKey = fixed(r, ed25519.PublicKeySize, "new_key")
	t.Signer = fixed(r, ed25519.PublicKeySize, "signer")
	t.Signature = fixed(r, ed25519.SignatureSize, "signature")
	if err := done(r); err != nil {
		return RetentionTransition{}, fmt.Errorf("decode retention transition: %w", err)
	}
	return t, nil
}

// Approval is one admin device's signature on a retention authorization:
// struct { opaque device_key<V>; opaque signature<V>; }.
type Approval struct {
	DeviceKey []byte
	Signature []byte
}

func encodeApprovals(w *writer, as []Approval) {
	w.Vector(func(w *writer) {
		for _, a := range as {
			w.Opaque(a.DeviceKey)
			w.Opaque(a.Signature)
		}
	})
}

func decodeApprovals(r *reader) []Approval {
	var out []Approval
	list(r, func(r *reader) {
		out = append(out, Approval{
			DeviceKey: fixed(r, ed25519.PublicKeySize, "approval key"),
			Signature: fixed(r, ed25519.SignatureSize, "approval signature"),
		})
	})
	return out
}

// RetentionPolicy is a group's retention window, active once approved by a
// threshold of admins (1 admin user in a one-admin workspace, otherwise 2;
// design/gaps.md "Retention policy"). It travels as the ct of a
// [KindRetentionPolicy] envelope:
//
//	struct {
//	    opaque group[32];
//	    uint64 version;              // strictly increasing per group
//	    uint32 text_window_days;     // 0 = unlimited
//	    uint32 media_window_days;    // 0 = unlimited
//	    Approval approvals<V>;       // each signs "retention-policy" over the encoding without approvals
//	} RetentionPolicy;
type RetentionPolicy struct {
	Group           ID
	Version         uint64
	TextWindowDays  uint32
	MediaWindowDays uint32
	Approvals       []Approval
}

func (p *RetentionPolicy) encodeTBS(w *writer) {
	w.Array32(p.Group)
	w.U64(p.Version)
	w.U32(p.TextWindowDays)
	w.U32(p.MediaWindowDays)
}

// TBS returns the bytes every approval signs.
func (p *RetentionPolicy) TBS() []byte { var w writer; p.encodeTBS(&w); return w.Bytes() }

// Encode returns the canonical encoding.
func (p *RetentionPolicy) Encode() []byte {
	var w writer
	p.encodeTBS(&w)
	encodeApprovals(&w, p.Approvals)
	return w.Bytes()
}

// Approve appends priv's approval.
func (p *RetentionPolicy) Approve(priv ed25519.PrivateKey) {
	p.Approvals = append(p.Approvals, Approval{
		DeviceKey: append([]byte(nil), priv.Public().(ed25519.PublicKey)...),
		Signature: Sign(priv, LabelRetentionPolicy, p.TBS()),
	})
}

// DecodeRetentionPolicy decodes a policy.
func DecodeRetentionPolicy(b []byte) (RetentionPolicy, error) {
	r := codec.NewReader(b)
	var p RetentionPolicy
	p.Group = ID(r.Array32())
	p.Version = r.U64()
	p.TextWindowDays = r.U32()
	p.MediaWindowDays = r.U32()
	p.Approvals = decodeApprovals(r)
	if err := done(r); err != nil {
		return RetentionPolicy{}, fmt.Errorf("decode retention policy: %w", err)
	}
	return p, nil
}

// RetentionDestruction is a one-off compact-now authorization for one
// checkpoint (spec/lifecycle.md "Dropping"), due from not_before:
//
//	struct {
//	    opaque group[32];
//	    EnvelopeRef checkpoint;
//	    uint64 not_before;       // Unix seconds
//	    uint64 not_after;        // Unix seconds; 0 = no expiry
//	    Approval approvals<V>;   // each signs "retention-destruction" over the encoding without approvals
//	} RetentionDestruction;
type RetentionDestruction struct {
	Group      ID
	Checkpoint EnvelopeRef
	NotBefore  uint64
	NotAfter   uint64
	Approvals  []Approval
}

func (d *RetentionDestruction) encodeTBS(w *writer) {
	w.Array32(d.Group)
	d.Checkpoint.encode(w)
	w.U64(d.NotBefore)
	w.U64(d.NotAfter)
}

// TBS returns the bytes every approval signs.
func (d *RetentionDestruction) TBS() []byte { var w writer; d.encodeTBS(&w); return w.Bytes() }

func (d *RetentionDestruction) encode(w *writer) {
	d.encodeTBS(w)
	encodeApprovals(w, d.Approvals)
}

func decodeDestruction(r *reader) RetentionDestruction {
	var d RetentionDestruction
	d.Group = ID(r.Array32())
	d.Checkpoint = decodeRef(r)
	d.NotBefore = r.U64()
	d.NotAfter = r.U64()
	d.Approvals = decodeApprovals(r)
	return d
}

// Approve appends priv's approval.
func (d *RetentionDestruction) Approve(priv ed25519.PrivateKey) {
	d.Approvals = append(d.Approvals, Approval{
		DeviceKey: append([]byte(nil), priv.Public().(ed25519.PublicKey)...),
		Signature: Sign(priv, LabelRetentionDestruction, d.TBS()),
	})
}

// RetentionResolution ends a frozen retention chain (design/gaps.md
// "Retention policy": "until a member resolves it") by naming the key that
// continues it, approved by the admin threshold. It travels as the ct of a
// [KindRetentionResolution] envelope:
//
//	struct {
//	    opaque group[32];
//	    opaque key<V>;           // the contested tip that continues the chain
//	    Approval approvals<V>;   // each signs "retention-resolution" over the encoding without approvals
//	} RetentionResolution;
//
// Every other branch is discarded: its keys can no longer sign checkpoints or
// drops, nor be succeeded.
type RetentionResolution struct {
	Group     ID
	Key       []byte
	Approvals []Approval
}

func (r *RetentionResolution) encodeTBS(w *writer) {
	w.Array32(r.Group)
	w.Opaque(r.Key)
}

// TBS returns the bytes every approval signs.
func (r *RetentionResolution) TBS() []byte { var w writer; r.encodeTBS(&w); return w.Bytes() }

// Encode returns the canonical encoding.
func (r *RetentionResolution) Encode() []byte {
	var w writer
	r.encodeTBS(&w)
	encodeApprovals(&w, r.Approvals)
	return w.Bytes()
}

// Approve appends priv's approval.
func (r *RetentionResolution) Approve(priv ed25519.PrivateKey) {
	r.Approvals = append(r.Approvals, Approval{
		DeviceKey: append([]byte(nil), priv.Public().(ed25519.PublicKey)...),
		Signature: Sign(priv, LabelRetentionResolution, r.TBS()),
	})
}

// DecodeRetentionResolution decodes a resolution.
func DecodeRetentionResolution(b []byte) (RetentionResolution, error) {
	r := codec.NewReader(b)
	var x RetentionResolution
	x.Group = ID(r.Array32())
	x.Key = fixed(r, ed25519.PublicKeySize, "key")
	x.Approvals = decodeApprovals(r)
	if err := done(r); err != nil {
		return RetentionResolution{}, fmt.Errorf("decode retention resolution: %w", err)
	}
	return x, nil
}

// Checkpoint is the relay-visible form of a checkpoint (spec/lifecycle.md
// "Checkpoints"); it is the ct of a [KindCheckpoint] envelope. The complete
// document inventory is in manifest, sealed for members; the relay sees only
// which snapshot envelopes it needs and the hash binding them to it:
//
//	struct {
//	    opaque group[32];
//	    EnvelopeRef barrier<V>;      // per author: the last envelope the checkpoint covers
//	    EnvelopeRef snapshots<V>;    // every snapshot envelope the manifest references
//	    opaque manifest<V>;          // sealed Checkpoint manifest (documents, heads, index snapshot)
//	    opaque manifest_hash[32];    // ManifestHash(group, snapshots, manifest)
//	    opaque retention_key<V>;     // the group's retention key that signs
//	    opaque signature<V>;         // Sign(retention_key, "checkpoint", encoding without signature)
//	} Checkpoint;
type Checkpoint struct {
	Group        ID
	Barrier      []EnvelopeRef
	Snapshots    []EnvelopeRef
	Manifest     []byte
	ManifestHash ID
	RetentionKey []byte
	Signature    []byte
}

// ManifestHash binds a checkpoint's snapshot list to its sealed manifest:
// SHA-256(opaque label<V> = "weald 1 manifest", group, EnvelopeRef snapshots<V>, opaque manifest<V>).
func ManifestHash(group ID, snapshots []EnvelopeRef, manifest []byte) ID {
	var w writer
	w.String(codec.LabelPrefix + "manifest")
	w.Array32(group)
	encodeRefs(&w, snapshots)
	w.Opaque(manifest)
	return sha256.Sum256(w.Bytes())
}

func (c *Checkpoint) encodeTBS(w *writer) {
	w.Array32(c.Group)
	encodeRefs(w, c.Barrier)
	encodeRefs(w, c.Snapshots)
	w.Opaque(c.Manifest)
	w.Array32(c.ManifestHash)
	w.Opaque(c.RetentionKey)
}

// TBS returns the bytes the signature covers.
func (c *Checkpoint) TBS() []byte { var w writer; c.encodeTBS(&w); return w.Bytes() }

// Encode returns the canonical encoding.
func (c *Checkpoint) Encode() []byte {
	var w writer
	c.encodeTBS(&w)
	w.Opaque(c.Signature)
	return w.Bytes()
}

// Sign computes ManifestHash, sets RetentionKey and signs c.
func (c *Checkpoint) Sign(priv ed25519.PrivateKey) {
	c.ManifestHash = ManifestHash(c.Group, c.Snapshots, c.Manifest)
	c.RetentionKey = append([]byte(nil), priv.Public().(ed25519.PublicKey)...)
	c.Signature = Sign(priv, LabelCheckpoint, c.TBS())
}

// Verify checks the manifest hash and the signature under c.RetentionKey.
func (c *Checkpoint) Verify() error {
	if ManifestHash(c.Group, c.Snapshots, c.Manifest) != c.ManifestHash {
		return fmt.Errorf("checkpoint manifest hash does not match its snapshots and manifest")
	}
	return Verify(c.RetentionKey, LabelCheckpoint, c.TBS(), c.Signature)
}

// DecodeCheckpoint decodes a checkpoint.
func DecodeCheckpoint(b []byte) (Checkpoint, error) {
	r := codec.NewReader(b)
	var c Checkpoint
	c.Group = ID(r.Array32())
	c.Barrier = decodeRefs(r)
	c.Snapshots = decodeRefs(r)
	c.Manifest = opaqueMax(r, MaxCTSize, "manifest")
	c.ManifestHash = ID(r.Array32())
	c.RetentionKey = fixed(r, ed25519.PublicKeySize, "retention_key")
	c.Signature = fixed(r, ed25519.SignatureSize, "signature")
	if err := done(r); err != nil {
		return Checkpoint{}, fmt.Errorf("decode checkpoint: %w", err)
	}
	return c, nil
}

// Authorization tags of [DropBefore].
const (
	AuthorizedByPolicy      uint8 = 1
	AuthorizedByDestruction uint8 = 2
)

// DropBefore asks the relay to delete a group's envelopes below a checkpoint
// (spec/lifecycle.md "Dropping"). It names the checkpoint, never a seq: the
// relay takes the barrier from the checkpoint envelope's own seq.
//
//	struct {
//	    opaque group[32];
//	    EnvelopeRef checkpoint;
//	    opaque manifest_hash[32];
//	    EnvelopeRef snapshots<V>;
//	    uint8 authorization;                 // 1 = policy, 2 = destruction
//	    select (authorization) {
//	        case 1: EnvelopeRef policy;      // the group's active RetentionPolicy envelope
//	        case 2: RetentionDestruction destruction;
//	    };
//	    opaque retention_key<V>;             // the head of the group's transition chain
//	    opaque signature<V>;                 // Sign(retention_key, "drop-before", encoding without signature)
//	} DropBefore;
type DropBefore struct {
	Group         ID
	Checkpoint    EnvelopeRef
	ManifestHash  ID
	Snapshots     []EnvelopeRef
	Authorization uint8
	Policy        EnvelopeRef          // when Authorization == AuthorizedByPolicy
	Destruction   RetentionDestruction // when Authorization == AuthorizedByDestruction
	RetentionKey  []byte
	Signature     []byte
}

func (d *DropBefore) encodeTBS(w *writer) {
	w.Array32(d.Group)
	d.Checkpoint.encode(w)
	w.Array32(d.ManifestHash)
	encodeRefs(w, d.Snapshots)
	w.U8(d.Authorization)
	switch d.Authorization {
	case AuthorizedByPolicy:
		d.Policy.encode(w)
	case AuthorizedByDestruction:
		d.Destruction.encode(w)
	}
	w.Opaque(d.RetentionKey)
}

// TBS returns the bytes the signature covers.
func (d *DropBefore) TBS() []byte { var w writer; d.encodeTBS(&w); return w.Bytes() }

func (d *DropBefore) encode(w *writer) {
	d.encodeTBS(w)
	w.Opaque(d.Signature)
}

// Encode returns the canonical encoding.
func (d *DropBefore) Encode() []byte { var w writer; d.encode(&w); return w.Bytes() }

// Sign sets RetentionKey and signs d.
func (d *DropBefore) Sign(priv ed25519.PrivateKey) {
	d.RetentionKey = append([]byte(nil), priv.Public().(ed25519.PublicKey)...)
	d.Signature = Sign(priv, LabelDropBefore, d.TBS())
}

// VerifySignature checks the signature under d.RetentionKey.
func (d *DropBefore) VerifySignature() error {
	return Verify(d.RetentionKey, LabelDropBefore, d.TBS(), d.Signature)
}

func decodeDropBefore(r *reader) DropBefore {
	var d DropBefore
	d.Group = ID(r.Array32())
	d.Checkpoint = decodeRef(r)
	d.ManifestHash = ID(r.Array32())
	d.Snapshots = decodeRefs(r)
	d.Authorization = r.U8()
	switch d.Authorization {
	case AuthorizedByPolicy:
		d.Policy = decodeRef(r)
	case AuthorizedByDestruction:
		d.Destruction = decodeDestruction(r)
	default:
		fail(r, "unknown drop authorization %d", d.Authorization)
	}
	d.RetentionKey = fixed(r, ed25519.PublicKeySize, "retention_key")
	d.Signature = fixed(r, ed25519.SignatureSize, "signature")
	return d
}

// DecodeDropBefore decodes a drop_before.
func DecodeDropBefore(b []byte) (DropBefore, error) {
	r := codec.NewReader(b)
	d := decodeDropBefore(r)
	if err := done(r); err != nil {
		return DropBefore{}, fmt.Errorf("decode drop_before: %w", err)
	}
	return d, nil
}
