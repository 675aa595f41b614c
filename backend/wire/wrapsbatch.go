package wire

// Several groups' recovery-wrap deletions in one request (a removal deletes
// wraps in every group the person was in): each item is a WrapsDelete,
// signed on its own and kept by the relay as the instruction its
// tombstones name, exactly as if it came alone; the relay executes them
// all in one transaction, all or none.
const (
	FrameWrapsDeleteBatch  FrameType = 0x54 // → WrapsDeletedBatch
	FrameWrapsDeletedBatch FrameType = 0x55
)

// MaxWrapsBatch bounds the items of one WrapsDeleteBatch.
const MaxWrapsBatch = 256

// WrapsDeleteBatch is struct { WrapsDelete items<V>; } (at most 256).
type WrapsDeleteBatch struct{ Items []WrapsDelete }

// WrapsDeletedBatch answers it, one WrapsDeleted per item in order:
// struct { WrapsDeleted items<V>; }.
type WrapsDeletedBatch struct{ Items []WrapsDeleted }

func (b *WrapsDeleteBatch) encode(w *writer) {
	w.Vector(func(w *writer) {
		for i := range b.Items {
			b.Items[i].encode(w)
		}
	})
}

func (b *WrapsDeletedBatch) encode(w *writer) {
	w.Vector(func(w *writer) {
		for i := range b.Items {
			b.Items[i].encode(w)
		}
	})
}

func (*WrapsDeleteBatch) FrameType() FrameType  { return FrameWrapsDeleteBatch }
func (*WrapsDeletedBatch) FrameType() FrameType { return FrameWrapsDeletedBatch }

func decodeWrapsDeleteBatch(r *reader) Body {
	b := &WrapsDeleteBatch{}
	list(r, func(r *reader) {
		if len(b.Items) >= MaxWrapsBatch {
			fail(r, "more than %d wrap deletions", MaxWrapsBatch)
			return
		}
		b.Items = append(b.Items, *decodeWrapsDelete(r).(*WrapsDelete))
	})
	return b
}

func decodeWrapsDeletedBatch(r *reader) Body {
	b := &WrapsDeletedBatch{}
	list(r, func(r *reader) {
		if len(b.Items) >= MaxWrapsBatch {
			fail(r, "more than %d wrap deletion answers", MaxWrapsBatch)
			return
		}
		b.Items = append(b.Items, WrapsDeleted{Group: ID(r.Array32()), Envelopes: r.U64(), Bytes: r.U64()})
	})
	return b
}

func init() {
	bodyDecoders[FrameWrapsDeleteBatch] = decodeWrapsDeleteBatch
	bodyDecoders[FrameWrapsDeletedBatch] = decodeWrapsDeletedBatch
}
