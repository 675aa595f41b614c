package relay

import (
	"context"
	"errors"
	"sort"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// FetchLatest answers FETCH_LATEST (docs/protocol/wire.md "Frames"): the
// newest envelope of each kind in kinds, in one read transaction, so a
// self-joiner gets the latest groupinfo.publish and history.publish in one
// round trip (spec/channels.md "The join"). The envelopes go out in
// ascending seq; once their ct passes MaxFetchBytes (the first envelope is
// always sent) the remaining kinds that have one are listed in LeftOut, in
// the order asked, for the client to ask again. kinds must hold 1 to
// wire.MaxLatestKinds distinct defined kinds.
func (s *Service) FetchLatest(ctx context.Context, ws, group wire.ID, kinds []wire.Kind) (*wire.Latest, error) {
	if len(kinds) == 0 || len(kinds) > wire.MaxLatestKinds {
		return nil, wire.Errorf(wire.CodeMalformed, "A fetch_latest names between 1 and 16 envelope kinds.",
			wire.U("limit", wire.MaxLatestKinds))
	}
	for i, k := range kinds {
		if !k.Known() {
			return nil, wire.Errorf(wire.CodeUnknownKind, "The request names an envelope kind this relay does not know.",
				wire.U("index", uint64(i)), wire.U("kind", uint64(k)))
		}
		for _, o := range kinds[:i] {
			if o == k {
				return nil, wire.Errorf(wire.CodeMalformed, "A fetch_latest names each envelope kind once.",
					wire.U("index", uint64(i)), wire.U("kind", uint64(k)))
			}
		}
	}
	out := &wire.Latest{Group: group}
	err := s.st.View(ctx, func(tx store.Tx) error {
		g, err := tx.Group(ctx, ws, group)
		if errors.Is(err, store.ErrNotFound) {
			if _, err := tx.Workspace(ctx, ws); errors.Is(err, store.ErrNotFound) {
				return errUnknownWorkspace(ws)
			}
			return nil // a group nobody of this workspace has written to yet is empty
		}
		if err != nil {
			return err
		}
		rows, err := tx.LatestEnvelopes(ctx, ws, group, kinds)
		if err != nil {
			return err
		}
		out.HeadSeq, out.DroppedBelow = g.HeadSeq, g.DroppedBelow
		var total int64
		for _, r := range rows {
			n := int64(len(r.Envelope.CT))
			if len(out.Envelopes) > 0 && total+n > MaxFetchBytes {
				out.LeftOut = append(out.LeftOut, r.Envelope.Kind)
				continue
			}
			total += n
			out.Envelopes = append(out.Envelopes, wire.SeqEnvelope{Seq: r.Seq, Envelope: r.Envelope})
		}
		sort.Slice(out.Envelopes, func(i, j int) bool { return out.Envelopes[i].Seq < out.Envelopes[j].Seq })
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
