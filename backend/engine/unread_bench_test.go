package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"weald/backend/documents"
	"weald/backend/roster"
	"weald/backend/store"
)

// BenchmarkUnreadCounts lists the unread counts of a workspace of 40
// channels holding 100,000 messages (2,500 each, a third by this user, one
// in ten mentioning them), two ways in the same run: the store's counts
// (UnreadCounts, one row per channel; the ns/op) and, as the baseline, what
// listing channels did before — read every message of every channel
// through Messages and count those by others after the read marker
// (ms/read-every-message). The ratio is counts/read-every-message.
func BenchmarkUnreadCounts(b *testing.B) {
	const channels, perChannel = 40, 2500
	r := startRelay(b)
	// Writing 100,000 rows takes longer than testCtx's minute on a busy machine.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	e := createWorkspace(b, r, 96)
	me := e.Status().User
	other := hexID{0xaa}.hex()
	var groups []string
	for i := range channels - 2 {
		c, err := e.CreateChannel(ctx, fmt.Sprintf("c%d", i), roster.AdmissionParent)
		if err != nil {
			b.Fatal(err)
		}
		groups = append(groups, c.Group)
	}
	groups = append(groups, e.GeneralChannel())
	for _, c := range e.Channels() {
		if c.Name == "activity" {
			groups = append(groups, c.Group)
		}
	}
	if len(groups) != channels {
		b.Fatalf("%d channels", len(groups))
	}
	base := time.Now().Add(-time.Duration(channels*perChannel) * time.Second)
	n := 0
	for gi, g := range groups {
		var gid hexID
		if err := gid.UnmarshalText([]byte(g)); err != nil {
			b.Fatal(err)
		}
		if err := e.db.update(ctx, func(t *txn) error {
			for i := range perChannel {
				author := other
				if i%3 == 0 {
					author = me
				}
				at := base.Add(time.Duration(n) * time.Second)
				n++
				var id documents.MessageID
				id[0], id[1], id[2], id[3] = byte(gi), byte(i>>16), byte(i>>8), byte(i)
				msg := Message{ID: id.String(), Author: author, Time: at.UTC(), Text: fmt.Sprintf("message %d", i)}
				if i%10 == 1 {
					msg.Text = "@me " + msg.Text
					msg.Mentioned = []Mention{{User: me, Start: 0, End: 3}}
				}
				v, err := json.Marshal(msg)
				if err != nil {
					return err
				}
				m := store.IndexedMessage{Shard: store.ShardID{Group: gid, Day: uint32(20000 + i/500)}, Time: at.UnixMilli(), Value: v,
					ByOther: author != me, MentionsMe: msg.Mentions(me)}
				m.ID = id
				if err := t.tx.PutMessage(m, msg.Text); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	// Half the channels are read up to their middle message.
	for i, g := range groups[:channels/2] {
		mid := base.Add(time.Duration(i*perChannel+perChannel/2) * time.Second)
		if err := e.MarkRead(ctx, g, mid); err != nil {
			b.Fatal(err)
		}
	}
	marks := map[string]int64{}
	var cs []store.ChannelCount
	if err := e.db.view(ctx, func(tx *store.Tx) (err error) {
		cs, err = tx.ChannelCounts()
		return err
	}); err != nil {
		b.Fatal(err)
	}
	for _, c := range cs {
		marks[hexID(c.Group).hex()] = c.ReadMs
	}

	// The baseline, as channels() counted before: every message read.
	start := time.Now()
	old := map[string]UnreadCount{}
	total := 0
	for _, g := range groups {
		ms, err := e.Messages(ctx, g, 0)
		if err != nil {
			b.Fatal(err)
		}
		total += len(ms)
		var c UnreadCount
		for _, m := range ms {
			if m.Author != me && m.Time.UnixMilli() > marks[g] {
				c.Unread++
				if m.Mentions(me) {
					c.Mentions++
				}
			}
		}
		if c.Unread > 0 {
			old[g] = c
		}
	}
	scan := float64(time.Since(start).Microseconds()) / 1000
	if total != channels*perChannel {
		b.Fatalf("read %d messages", total)
	}

	var got map[string]UnreadCount
	var err error
	b.ResetTimer()
	for b.Loop() {
		if got, err = e.UnreadCounts(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if fmt.Sprint(got) != fmt.Sprint(old) {
		b.Fatalf("counts differ:\nstore %v\nscan  %v", got, old)
	}
	counts := b.Elapsed().Seconds() * 1000 / float64(b.N)
	b.ReportMetric(scan, "ms/read-every-message")
	b.ReportMetric(counts/scan, "counts/read-every-message")
}
