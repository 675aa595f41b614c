package wire

// FETCH_LATEST: the newest envelope of each of a few kinds of one group in
// one round trip (spec/channels.md "The join": a self-joiner needs only the
// latest groupinfo.publish and history.publish). docs/protocol/wire.md
// "Frames" describes it.

// MaxLatestKinds bounds the kinds of one [FetchLatest].
const MaxLatestKinds = 16

// FetchLatest asks for the newest envelope (highest seq) of each kind:
// struct { opaque group[32]; uint16 kinds<V>; }. kinds holds 1 to
// [MaxLatestKinds] distinct values; an undefined kind is refused by the
// relay with bad_request/unknown_kind {index, kind}.
type FetchLatest struct {
	Group ID
	Kinds []Kind
}

// Latest answers FetchLatest:
//
//	struct {
//	    opaque group[32];
//	    SeqEnvelope envelopes<V>;   // at most one per requested kind, ascending seq
//	    uint64 head_seq;            // the group's highest seq
//	    uint64 dropped_below;       // as in Envelopes
//	    uint16 left_out<V>;         // kinds that have an envelope not sent for size: ask again
//	} Latest;
//
// A requested kind with no envelope in the group is in neither list.
type Latest struct {
	Group        ID
	Envelopes    []SeqEnvelope
	HeadSeq      uint64
	DroppedBelow uint64
	LeftOut      []Kind
}

func (*FetchLatest) FrameType() FrameType { return FrameFetchLatest }
func (*Latest) FrameType() FrameType      { return FrameLatest }

func encodeKinds(w *writer, ks []Kind) {
	w.Vector(func(w *writer) {
		for _, k := range ks {
			w.U16(uint16(k))
		}
	})
}

// decodeKinds reads a uint16 kinds<V> list of at most MaxLatestKinds
// distinct values; what names the list in errors.
func decodeKinds(r *reader, what string) []Kind {
	var out []Kind
	list(r, func(r *reader) {
		k := Kind(r.U16())
		if r.Err() != nil {
			return
		}
		if len(out) == MaxLatestKinds {
			fail(r, "more than %d %s", MaxLatestKinds, what)
			return
		}
		for _, o := range out {
			if o == k {
				fail(r, "%s lists %s twice", what, k)
				return
			}
		}
		out = append(out, k)
	})
	return out
}

func (f *FetchLatest) encode(w *writer) { w.Array32(f.Group); encodeKinds(w, f.Kinds) }

func decodeFetchLatest(r *reader) Body {
	f := &FetchLatest{Group: ID(r.Array32())}
	f.Kinds = decodeKinds(r, "kinds")
	if r.Err() == nil && len(f.Kinds) == 0 {
		fail(r, "fetch_latest names no kind")
	}
	return f
}

func (l *Latest) encode(w *writer) {
	w.Array32(l.Group)
	encodeSeqEnvelopes(w, l.Envelopes)
	w.U64(l.HeadSeq)
	w.U64(l.DroppedBelow)
	encodeKinds(w, l.LeftOut)
}

func decodeLatest(r *reader) Body {
	l := &Latest{Group: ID(r.Array32())}
	l.Envelopes = decodeSeqEnvelopes(r)
	l.HeadSeq = r.U64()
	l.DroppedBelow = r.U64()
	l.LeftOut = decodeKinds(r, "left_out")
	return l
}

func init() {
	bodyDecoders[FrameFetchLatest] = decodeFetchLatest
	bodyDecoders[FrameLatest] = decodeLatest
}
