package documents

import (
	"fmt"
	"testing"
	"time"
)

// payloads1000 returns 1,000 content payloads posting one message each.
func payloads1000(b *testing.B) (*replica, [][]byte, *Channel) {
	a := newReplica("a", 1)
	c := a.channel(b, id("group"))
	ps := make([][]byte, 1000)
	for i := range ps {
		a.clock.advance(time.Second)
		_, ps[i] = mustPost(b, c, fmt.Sprintf("message %d: the quick brown fox jumps over the lazy dog", i))
	}
	return a, ps, c
}

// BenchmarkApply1000Messages applies 1,000 received one-message payloads to
// a fresh channel, as a joiner catching up on #general does.
func BenchmarkApply1000Messages(b *testing.B) {
	a, ps, _ := payloads1000(b)
	r := newReplica("b", 2)
	b.ResetTimer()
	for range b.N {
		c := r.channel(b, id("group"))
		for _, p := range ps {
			mustApply(b, c, a.device, p)
		}
		if n := len(allMessages(b, c)); n != 1000 {
			b.Fatalf("%d messages", n)
		}
	}
}

// BenchmarkLoadShard1000Messages loads a saved day shard of 1,000 messages
// and reads them all.
func BenchmarkLoadShard1000Messages(b *testing.B) {
	a, _, c := payloads1000(b)
	day, _ := DayOf(t0)
	s, _ := c.Shard(day)
	savedBytes := saved(b, s.Document)
	b.ReportMetric(float64(len(savedBytes)), "saved-bytes")
	b.ResetTimer()
	for range b.N {
		l, err := LoadShard(id("group"), day, savedBytes, nil, a.opts)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(l.Messages()); n != 1000 {
			b.Fatalf("%d messages", n)
		}
	}
}
