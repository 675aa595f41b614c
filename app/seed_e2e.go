//go:build e2e

package app

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The e2e build's seeding hook: synthetic history for one channel, held in
// memory and served by MessagesBefore ahead of the channel's real messages,
// so that a browser benchmark can open a channel of 100,000 messages without
// posting them through the engine. Absent from every other build.

var seeded = struct {
	sync.Mutex
	m map[string][]Message
}{m: map[string][]Message{}}

// clockOffset shifts the engines' clock in the e2e build (SetClockOffset).
var clockOffset atomic.Int64

func init() {
	testClock = func() time.Time { return time.Now().Add(time.Duration(clockOffset.Load())) }
	seededHistory = func(ws, channel string) []Message {
		seeded.Lock()
		defer seeded.Unlock()
		return seeded.m[ws+"/"+channel]
	}
}

// SeedHistory gives channel of ws n synthetic messages from three authors,
// one a minute, ending an hour ago, replacing any seeded before. mixed
// makes the rows differ in height as a real channel's do: every seventh is
// a join notice and every fifth message is long enough to wrap.
func SeedHistory(ws, channel string, n int, mixed bool) error {
	if n < 0 || n > 1_000_000 {
		return fmt.Errorf("seed: n must be 0 to 1,000,000")
	}
	ws, channel = strings.ToLower(ws), strings.ToLower(channel)
	authors := []string{"Ada", "Ben", "Chi"}
	end := time.Now().Add(-time.Hour).UnixMilli()
	out := make([]Message, n)
	for i := range out {
		// Runs of one to four messages by the same author, so grouping shows.
		a := authors[(i/(1+i%4))%len(authors)]
		out[i] = Message{
			ID:      fmt.Sprintf("seed-%07d", i),
			Channel: channel,
			Author:  a,
			Text:    fmt.Sprintf("Seeded message %d of %d from %s.", i+1, n, a),
			SentAt:  end - int64(n-i)*60_000,
			State:   MessageSent,
		}
		switch {
		case mixed && i%7 == 3:
			out[i].Kind, out[i].Text = MessageJoined, ""
		case mixed && i%5 == 1:
			out[i].Text += strings.Repeat(" A longer line that wraps in a narrow window.", 1+i%4)
		}
	}
	seeded.Lock()
	defer seeded.Unlock()
	seeded.m[ws+"/"+channel] = out
	return nil
}

// SetClockOffset shifts the clock of every engine by d (0: the real time),
// so that a test can post messages dated days ago, as a device whose clock
// was behind would (the retention story, frontend/e2e/retention.test.mjs).
func SetClockOffset(d time.Duration) error {
	if d < -10*365*24*time.Hour || d > 0 {
		return fmt.Errorf("clock: the offset must be 0 to -3650 days")
	}
	clockOffset.Store(int64(d))
	return nil
}
