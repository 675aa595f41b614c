package relay

import (
	"bytes"
	"testing"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// TestFetchLatest: the newest envelope of each requested kind, ascending
// seq, on both stores; a size cut lists the rest in LeftOut; bad requests
// are refused with their codes and change nothing.
func TestFetchLatest(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		g := id("g")
		sent := map[string]wire.Envelope{}
		for _, s := range []struct {
			name string
			kind wire.Kind
		}{
			{"gi1", wire.KindGroupInfoPublish}, {"c1", wire.KindContent}, {"h1", wire.KindHistoryPublish},
			{"gi2", wire.KindGroupInfoPublish}, {"c2", wire.KindContent}, {"h2", wire.KindHistoryPublish}, {"c3", wire.KindContent},
		} {
			e := f.next("alice", g, s.kind, []byte(s.name))
			f.mustSend("alice", e)
			sent[s.name] = e
		}
		// bob's newer groupinfo wins over alice's.
		gi3 := f.next("bob", g, wire.KindGroupInfoPublish, []byte("gi3"))
		f.mustSend("bob", gi3)
		sent["gi3"] = gi3

		out, err := f.svc.FetchLatest(f.ctx, f.ws, g, []wire.Kind{wire.KindGroupInfoPublish, wire.KindHistoryPublish, wire.KindSnapshot})
		if err != nil {
			t.Fatal(err)
		}
		if out.Group != g || out.HeadSeq != 8 || out.DroppedBelow != 0 || len(out.LeftOut) != 0 || len(out.Envelopes) != 2 {
			t.Fatalf("latest = %+v", out)
		}
		if e := out.Envelopes[0]; e.Seq != 6 || e.Envelope.Hash() != hashOf(sent["h2"]) {
			t.Fatalf("first = seq %d %q, want history h2 at 6", e.Seq, e.Envelope.CT)
		}
		if e := out.Envelopes[1]; e.Seq != 8 || e.Envelope.Hash() != hashOf(sent["gi3"]) {
			t.Fatalf("second = seq %d %q, want groupinfo gi3 at 8", e.Seq, e.Envelope.CT)
		}

		// Nothing written yet: empty, no error.
		empty, err := f.svc.FetchLatest(f.ctx, f.ws, id("never written"), []wire.Kind{wire.KindGroupInfoPublish})
		if err != nil || len(empty.Envelopes) != 0 || empty.HeadSeq != 0 || len(empty.LeftOut) != 0 {
			t.Fatalf("unwritten group: %+v %v", empty, err)
		}

		// Size: two big envelopes do not fit one answer; the second kind is left out.
		big := id("big")
		f.mustSend("alice", f.next("alice", big, wire.KindSnapshot, make([]byte, MaxFetchBytes/2+1)))
		f.mustSend("alice", f.next("alice", big, wire.KindGroupInfoPublish, make([]byte, MaxFetchBytes/2+1)))
		f.mustSend("alice", f.next("alice", big, wire.KindHistoryPublish, []byte("small")))
		cut, err := f.svc.FetchLatest(f.ctx, f.ws, big, []wire.Kind{wire.KindGroupInfoPublish, wire.KindSnapshot, wire.KindHistoryPublish})
		if err != nil {
			t.Fatal(err)
		}
		if len(cut.Envelopes) != 2 || cut.Envelopes[0].Envelope.Kind != wire.KindGroupInfoPublish || cut.Envelopes[1].Envelope.Kind != wire.KindHistoryPublish ||
			len(cut.LeftOut) != 1 || cut.LeftOut[0] != wire.KindSnapshot {
			t.Fatalf("cut answer: %d envelopes, left out %v", len(cut.Envelopes), cut.LeftOut)
		}
		rest, err := f.svc.FetchLatest(f.ctx, f.ws, big, cut.LeftOut)
		if err != nil || len(rest.Envelopes) != 1 || rest.Envelopes[0].Seq != 1 || len(rest.LeftOut) != 0 {
			t.Fatalf("asking again: %+v %v", rest, err)
		}

		// Refusals.
		we := f.refused(wire.CodeUnknownKind, func() error {
			_, err := f.svc.FetchLatest(f.ctx, f.ws, g, []wire.Kind{wire.KindContent, 0x7777})
			return err
		})
		if !bytes.Contains([]byte(we.Error()), []byte("kind")) {
			t.Errorf("unknown kind error %v names no kind", we)
		}
		f.refused(wire.CodeMalformed, func() error {
			_, err := f.svc.FetchLatest(f.ctx, f.ws, g, nil)
			return err
		})
		f.refused(wire.CodeMalformed, func() error {
			_, err := f.svc.FetchLatest(f.ctx, f.ws, g, []wire.Kind{wire.KindContent, wire.KindContent})
			return err
		})
		otherWS := id("other ws " + t.Name())
		if err := f.svc.ProvisionWorkspace(f.ctx, otherWS, pub(key("other genesis"))); err != nil {
			t.Fatal(err)
		}
		// The same id in another workspace is another (empty) group.
		if got, err := f.svc.FetchLatest(f.ctx, otherWS, g, []wire.Kind{wire.KindContent}); err != nil || len(got.Envelopes) != 0 {
			t.Fatalf("fetch_latest of the same id in another workspace: %+v %v", got, err)
		}
		f.refused(wire.CodeWorkspaceUnknown, func() error {
			_, err := f.svc.FetchLatest(f.ctx, id("no such ws"), id("no such group"), []wire.Kind{wire.KindContent})
			return err
		})
	})
}

func hashOf(e wire.Envelope) wire.ID { return e.Hash() }
