package relayclient

import (
	"context"
	"fmt"
	"slices"

	"weald/backend/wire"
)

// FetchLatest returns the newest envelope of each of kinds (1 to
// wire.MaxLatestKinds distinct kinds) in group, ascending seq, in one round
// trip (FETCH_LATEST, docs/protocol/wire.md "Frames"). A kind the group has
// no envelope of is simply absent. When the relay leaves kinds out for size
// it asks again for those (one more round trip each time), so the answer
// is complete; LeftOut of the result is then empty and HeadSeq is the
// highest any answer reported. The request is retried on a new connection
// if the old one is lost (it is a read).
func (c *Client) FetchLatest(ctx context.Context, group wire.ID, kinds ...wire.Kind) (*wire.Latest, error) {
	out, err := expect[*wire.Latest](c.do(ctx, &wire.FetchLatest{Group: group, Kinds: kinds}, retryOnReconnect))
	if err != nil {
		return nil, err
	}
	for round := 0; len(out.LeftOut) > 0; round++ {
		if round >= wire.MaxLatestKinds {
			return nil, fmt.Errorf("relayclient: fetch_latest of %s kept leaving kinds out", group.Short())
		}
		ask := out.LeftOut
		for _, k := range ask {
			if !slices.Contains(kinds, k) {
				return nil, fmt.Errorf("relayclient: fetch_latest answer left out %s, which was not asked for", k)
			}
		}
		more, err := expect[*wire.Latest](c.do(ctx, &wire.FetchLatest{Group: group, Kinds: ask}, retryOnReconnect))
		if err != nil {
			return nil, err
		}
		if len(more.Envelopes) == 0 && len(more.LeftOut) >= len(ask) {
			return nil, fmt.Errorf("relayclient: fetch_latest of %s made no progress", group.Short())
		}
		out.Envelopes = append(out.Envelopes, more.Envelopes...)
		out.HeadSeq = max(out.HeadSeq, more.HeadSeq)
		out.DroppedBelow = max(out.DroppedBelow, more.DroppedBelow)
		out.LeftOut = more.LeftOut
	}
	slices.SortFunc(out.Envelopes, func(a, b wire.SeqEnvelope) int {
		switch {
		case a.Seq < b.Seq:
			return -1
		case a.Seq > b.Seq:
			return 1
		}
		return 0
	})
	return out, nil
}
