package wire

// Several key-package claims in one request (approving an agent for 20
// channels claims 20 of its packages, one per group's Add): each entry is
// judged exactly as a KeyPackageClaim of that owner would be (who may
// claim, the claim rate of each owner), and the relay claims them all in
// one transaction. docs/protocol/wire.md "Roster and key packages".
const (
	FrameKeyPackageClaimBatch   FrameType = 0x48 // → KeyPackageClaimedBatch
	FrameKeyPackageClaimedBatch FrameType = 0x49
)

// MaxClaimBatch bounds the entries of one KeyPackageClaimBatch.
const MaxClaimBatch = 256

// KeyPackageClaimBatch is struct { opaque owners<V>; } of 1 to
// MaxClaimBatch 32-byte owners; an owner named n times is claimed n times.
type KeyPackageClaimBatch struct{ Owners []ID }

// KeyPackageClaimedBatch answers it, one item per owner entry in order:
// struct { ClaimedItem items<V>; } with
// ClaimedItem = struct { opaque owner[32]; bool found; opaque key_package<V>; bool last_resort; }.
// found is false (and key_package empty) when the owner had no package
// left for that entry: what KEYPACKAGE_CLAIM refuses as keypackage/none.
type KeyPackageClaimedBatch struct{ Items []ClaimedItem }

// ClaimedItem is one entry of a KeyPackageClaimedBatch.
type ClaimedItem struct {
	Owner      ID
	Found      bool
	KeyPackage []byte
	LastResort bool
}

func (b *KeyPackageClaimBatch) encode(w *writer) {
	w.Vector(func(w *writer) {
		for _, o := range b.Owners {
			w.Array32(o)
		}
	})
}

func (b *KeyPackageClaimedBatch) encode(w *writer) {
	w.Vector(func(w *writer) {
		for _, it := range b.Items {
			w.Array32(it.Owner)
			w.Bool(it.Found)
			w.Opaque(it.KeyPackage)
			w.Bool(it.LastResort)
		}
	})
}

func (*KeyPackageClaimBatch) FrameType() FrameType   { return FrameKeyPackageClaimBatch }
func (*KeyPackageClaimedBatch) FrameType() FrameType { return FrameKeyPackageClaimedBatch }

func decodeKeyPackageClaimBatch(r *reader) Body {
	b := &KeyPackageClaimBatch{}
	list(r, func(r *reader) {
		if len(b.Owners) >= MaxClaimBatch {
			fail(r, "more than %d key-package claims", MaxClaimBatch)
			return
		}
		b.Owners = append(b.Owners, ID(r.Array32()))
	})
	if r.Err() == nil && len(b.Owners) == 0 {
		fail(r, "keypackage_claim_batch names no owner")
	}
	return b
}

func decodeKeyPackageClaimedBatch(r *reader) Body {
	b := &KeyPackageClaimedBatch{}
	list(r, func(r *reader) {
		if len(b.Items) >= MaxClaimBatch {
			fail(r, "more than %d claimed key packages", MaxClaimBatch)
			return
		}
		b.Items = append(b.Items, ClaimedItem{Owner: ID(r.Array32()), Found: r.Bool(),
			KeyPackage: opaqueMax(r, MaxKeyPackageSize, "key package"), LastResort: r.Bool()})
	})
	return b
}

func init() {
	bodyDecoders[FrameKeyPackageClaimBatch] = decodeKeyPackageClaimBatch
	bodyDecoders[FrameKeyPackageClaimedBatch] = decodeKeyPackageClaimedBatch
}
