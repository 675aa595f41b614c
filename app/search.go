package app

import "weald/backend/store"

// SearchHit is one message found by Search, with its channel.
type SearchHit struct {
	Channel     string  `json:"channel"` // group id (hex)
	ChannelName string  `json:"channelName"`
	Message     Message `json:"message"`
	// Words are the query's words as search matched them (lower case), for
	// marking them in the text.
	Words []string `json:"words"`
}

// MaxHits bounds the results of one Search.
const MaxHits = 50

// Search finds messages of the workspace's local history holding every
// word of query (the last one also as the start of a word), newest first,
// in one channel or (channel "") all of them.
func (w *Workspaces) Search(ws, query, channel string) ([]SearchHit, error) {
	r, err := w.run(ws)
	if err != nil {
		return nil, err
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	res, serr := r.eng.Search(ctx, query, channel, MaxHits)
	if serr != nil {
		return nil, toError(serr)
	}
	user := r.eng.Status().User
	words := store.Words(query)
	out := make([]SearchHit, 0, len(res))
	for _, h := range res {
		out = append(out, SearchHit{Channel: h.Channel, ChannelName: h.ChannelName, Words: words,
			Message: w.toMessage(r, user, h.Channel, h.Message)})
	}
	return out, nil
}
