package documents

import (
	"bytes"
	"crypto/sha256"
	"math/rand/v2"
	"testing"
	"time"

	"weald/backend/wire"
)

// testClock is a settable clock.
type testClock struct{ t time.Time }

func (c *testClock) now() time.Time          { return c.t }
func (c *testClock) advance(d time.Duration) { c.t = c.t.Add(d) }

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func id(s string) wire.ID { return sha256.Sum256([]byte(s)) }

// replica is one client: a device posting for a principal.
type replica struct {
	device, principal wire.ID
	clock             *testClock
	opts              Options
}

func newReplica(name string, seed uint64) *replica {
	r := &replica{device: id("device " + name), principal: id("user " + name), clock: &testClock{t: t0}}
	r.opts = Options{Author: r.device, Principal: r.principal, Clock: r.clock.now,
		Rand: rand.NewChaCha8(sha256.Sum256([]byte{byte(seed)}))}
	return r
}

func (r *replica) channel(t testing.TB, group wire.ID) *Channel {
	t.Helper()
	c, err := OpenChannel(group, r.opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustPost(t testing.TB, c *Channel, text string) (Message, []byte) {
	t.Helper()
	m, p, err := c.Post(text)
	if err != nil {
		t.Fatalf("post %q: %v", text, err)
	}
	return m, p
}

func mustApply(t testing.TB, c *Channel, author wire.ID, p []byte) ApplyResult {
	t.Helper()
	r, err := c.Apply(author, p)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	return r
}

func texts(ms []Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Text
	}
	return out
}

func allMessages(t testing.TB, c *Channel) []Message {
	t.Helper()
	ms, err := c.Messages(0)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// state is everything observable about a document, to prove rejected input
// changed nothing.
func state(d *Document) []byte {
	var b bytes.Buffer
	for _, h := range d.Heads() {
		b.Write(h[:])
	}
	b.WriteString("|")
	b.Write(d.doc.Save())
	b.WriteString("|")
	b.Write(d.Pending())
	return b.Bytes()
}

func saved(t testing.TB, d *Document) []byte {
	t.Helper()
	b, err := d.Save()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func snapshot(t testing.TB, d *Document) Snapshot {
	t.Helper()
	s, err := d.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return s
}
