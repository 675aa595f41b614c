package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"testing"

	"weald/backend/wire"
)

func TestWorkspaceRow(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	s.View(ctx, func(tx *Tx) error {
		if _, err := tx.Workspace(); !errors.Is(err, ErrNoWorkspace) {
			t.Fatalf("empty database: %v", err)
		}
		return nil
	})
	w := Workspace{ID: id("ws"), Name: "Acme", RelayURL: "ws://127.0.0.1:1", UserID: id("u"), SelfKind: "device", SelfID: id("d")}
	update(t, s, func(tx *Tx) error {
		if err := tx.PutWorkspace(w); err != nil {
			return err
		}
		if err := tx.SetBootstrapStep(3); err != nil {
			return err
		}
		if err := tx.SetBootstrapStep(2); err != nil { // a retried earlier step
			return err
		}
		return tx.SetReady(true)
	})
	s.View(ctx, func(tx *Tx) error {
		got, err := tx.Workspace()
		if err != nil || got.BootstrapStep != 3 || !got.Ready || got.Name != "Acme" || got.UserID != w.UserID || !got.RecoveryID.IsZero() {
			t.Fatalf("workspace %+v %v", got, err)
		}
		return nil
	})
	update(t, s, func(tx *Tx) error {
		w.Name = "Acme Inc"
		w.BootstrapStep = 1
		if err := tx.PutWorkspace(w); err != nil {
			return err
		}
		got, _ := tx.Workspace()
		if got.Name != "Acme Inc" || got.BootstrapStep != 3 {
			t.Fatalf("update lowered the step or lost the name: %+v", got)
		}
		other := w
		other.ID = id("other")
		if err := tx.PutWorkspace(other); !errors.Is(err, ErrWrongWorkspace) {
			t.Fatalf("second workspace: %v", err)
		}
		return nil
	})
}

func TestKeys(t *testing.T) {
	s := openTest(t)
	update(t, s, func(tx *Tx) error {
		for _, k := range []Key{{"hpke-init", []byte{2}, []byte("b")}, {"hpke-init", []byte{1}, []byte("a")}, {"device-signature", []byte{1}, []byte("s")}} {
			if err := tx.PutKey(k); err != nil {
				return err
			}
		}
		if err := tx.PutKey(Key{"hpke-init", []byte{1}, []byte("a2")}); err != nil {
			return err
		}
		ks, err := tx.Keys("hpke-init")
		if err != nil || len(ks) != 2 || string(ks[0].Sealed) != "a2" || ks[1].ID[0] != 2 {
			t.Fatalf("keys %+v %v", ks, err)
		}
		if err := tx.DeleteKey("hpke-init", []byte{1}); err != nil {
			return err
		}
		if _, err := tx.Key("hpke-init", []byte{1}); !errors.Is(err, ErrNotFound) {
			t.Fatalf("deleted key: %v", err)
		}
		if k, err := tx.Key("device-signature", []byte{1}); err != nil || string(k.Sealed) != "s" {
			t.Fatalf("key %+v %v", k, err)
		}
		return nil
	})
}

func TestRosterChain(t *testing.T) {
	s := openTest(t)
	update(t, s, func(tx *Tx) error {
		if n, head, _ := tx.RosterHead(); n != 0 || !head.IsZero() {
			t.Fatal("empty roster head is not zero")
		}
		head, err := tx.AppendRosterOps([]byte("genesis"), []byte("admit"))
		if err != nil {
			return err
		}
		if head != sha256.Sum256([]byte("admit")) {
			t.Fatal("head is not the hash of the last operation")
		}
		if _, err := tx.AppendRosterOps([]byte("policy")); err != nil {
			return err
		}
		ops, err := tx.RosterOps(1)
		if err != nil || len(ops) != 2 || ops[0].Index != 1 || string(ops[1].Bytes) != "policy" {
			t.Fatalf("ops %+v %v", ops, err)
		}
		if _, err := tx.AppendRosterOps([]byte("genesis")); err == nil {
			t.Fatal("the same operation twice in one chain")
		}
		return nil
	})
	s.View(context.Background(), func(tx *Tx) error {
		if n, _, _ := tx.RosterHead(); n != 3 {
			t.Fatalf("count %d", n)
		}
		return nil
	})
}

func TestGroups(t *testing.T) {
	s := openTest(t)
	update(t, s, func(tx *Tx) error {
		for i, name := range []string{"general", "activity"} {
			if err := tx.PutGroup(Group{ID: id(name), Kind: GroupChannel, PolicyHash: id("p"), Name: name, Order: i + 1}); err != nil {
				return err
			}
		}
		if err := tx.PutGroup(Group{ID: id("root"), Kind: GroupRoot, Name: "Acme"}); err != nil {
			return err
		}
		if err := tx.PutGroup(Group{ID: id("x"), Kind: "team"}); err == nil {
			t.Fatal("unknown kind accepted")
		}
		if err := tx.SetGroupMuted(id("activity"), true); err != nil {
			return err
		}
		if err := tx.RenameGroup(id("general"), "everyone"); err != nil {
			return err
		}
		if err := tx.SetGroupOrder(id("activity"), 0); err != nil {
			return err
		}
		if err := tx.SetGroupState(id("general"), true, []byte("mls"), 4); err != nil {
			return err
		}
		if err := tx.SetFetchedSeq(id("general"), 10); err != nil {
			return err
		}
		if err := tx.SetFetchedSeq(id("general"), 5); err != nil {
			return err
		}
		if err := tx.SetGroupMuted(id("nope"), true); !errors.Is(err, ErrNotFound) {
			t.Fatalf("unknown group: %v", err)
		}
		gs, err := tx.Groups()
		if err != nil || len(gs) != 3 {
			t.Fatalf("groups %v", err)
		}
		if gs[0].Name != "Acme" || gs[1].Name != "activity" || !gs[1].Muted || gs[2].Name != "everyone" {
			t.Fatalf("order: %s %s %s", gs[0].Name, gs[1].Name, gs[2].Name)
		}
		g, err := tx.Group(id("general"))
		if err != nil || !g.Joined || string(g.MLSState) != "mls" || g.Epoch != 4 || g.FetchedSeq != 10 || g.PolicyHash != id("p") {
			t.Fatalf("group %+v %v", g, err)
		}
		if r, _ := tx.Group(id("root")); !r.PolicyHash.IsZero() {
			t.Fatal("nil policy hash read back non-zero")
		}
		return nil
	})
}

func env(g, author wire.ID, seq, ctr uint64, prev wire.ID, body string) Envelope {
	h := sha256.Sum256(append(append([]byte(body), author[:]...), byte(ctr)))
	return Envelope{Group: g, Seq: seq, Author: author, Ctr: ctr, Prev: prev, Hash: h, Kind: wire.KindContent, Bytes: []byte(body)}
}

func TestEnvelopeChains(t *testing.T) {
	s := openTest(t)
	g, a, b := id("general"), id("dev a"), id("dev b")
	update(t, s, func(tx *Tx) error { return tx.PutGroup(Group{ID: g, Kind: GroupChannel, Name: "general"}) })
	a1 := env(g, a, 1, 1, wire.ZeroID, "a1")
	b1 := env(g, b, 2, 1, wire.ZeroID, "b1")
	a2 := env(g, a, 3, 2, a1.Hash, "a2")
	update(t, s, func(tx *Tx) error {
		for _, e := range []Envelope{a1, b1, a2} {
			if ok, err := tx.PutEnvelope(e); err != nil || !ok {
				t.Fatalf("put %s: %v %v", e.Bytes, ok, err)
			}
		}
		if ok, err := tx.PutEnvelope(a2); err != nil || ok {
			t.Fatalf("the same envelope again: %v %v", ok, err)
		}
		return nil
	})
	cases := map[string]struct {
		e    Envelope
		want error
	}{
		"gap":           {env(g, a, 4, 4, a2.Hash, "a4"), ErrChainGap},
		"first not 1":   {env(g, id("dev c"), 4, 2, wire.ZeroID, "c2"), ErrChainGap},
		"fork same ctr": {env(g, a, 4, 2, a1.Hash, "a2 other"), ErrChainFork},
		"fork prev":     {env(g, a, 4, 3, a1.Hash, "a3 wrong prev"), ErrChainFork},
		"seq taken":     {env(g, b, 3, 2, b1.Hash, "b2"), ErrSeqConflict},
		"replay":        {Envelope{Group: g, Seq: 9, Author: a, Ctr: 1, Hash: a1.Hash, Bytes: a1.Bytes}, ErrChainReplay},
		"unknown group": {env(id("nowhere"), a, 1, 1, wire.ZeroID, "x"), nil},
	}
	for name, c := range cases {
		err := s.Update(context.Background(), func(tx *Tx) error { _, err := tx.PutEnvelope(c.e); return err })
		if c.want == nil {
			if err == nil {
				t.Errorf("%s: accepted", name)
			}
			continue
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	s.View(context.Background(), func(tx *Tx) error {
		ctr, h, ok, err := tx.ChainHead(g, a)
		if err != nil || !ok || ctr != 2 || h != a2.Hash {
			t.Fatalf("head of a: %d %v %v", ctr, ok, err)
		}
		es, err := tx.Envelopes(g, 1, 10)
		if err != nil || len(es) != 2 || es[0].Seq != 2 || es[1].Prev != wire.ZeroID || !bytes.Equal(es[1].Bytes, []byte("a2")) {
			t.Fatalf("envelopes %+v %v", es, err)
		}
		return nil
	})
	update(t, s, func(tx *Tx) error {
		if err := tx.MarkProcessed(g, 1); err != nil {
			return err
		}
		un, err := tx.Unprocessed(g, 10)
		if err != nil || len(un) != 2 || un[0].Seq != 2 {
			t.Fatalf("unprocessed %+v %v", un, err)
		}
		// A checkpoint barrier moves b's head forward; the chain goes on from there.
		if err := tx.SetChainHead(g, b, 7, id("b7")); err != nil {
			return err
		}
		if err := tx.SetChainHead(g, b, 3, id("b3")); err != nil { // never backwards
			return err
		}
		if ok, err := tx.PutEnvelope(env(g, b, 10, 8, id("b7"), "b8")); err != nil || !ok {
			t.Fatalf("after the barrier: %v %v", ok, err)
		}
		return nil
	})
}

func TestHistoryKeys(t *testing.T) {
	s := openTest(t)
	g := id("general")
	update(t, s, func(tx *Tx) error {
		if err := tx.PutGroup(Group{ID: g, Kind: GroupChannel, Name: "general"}); err != nil {
			return err
		}
		k2 := HistoryKey{Group: g, KeyID: []byte("k2"), Scope: ScopeHistory, Key: []byte("secret2"), FromEpoch: 5}
		k1 := HistoryKey{Group: g, KeyID: []byte("k1"), Scope: ScopeHistory, Key: []byte("secret1"), FromEpoch: 0}
		for _, k := range []HistoryKey{k2, k1, k1} {
			if err := tx.PutHistoryKey(k); err != nil {
				return err
			}
		}
		k1.Key = []byte("other")
		if err := tx.PutHistoryKey(k1); !errors.Is(err, ErrKeyConflict) {
			t.Fatalf("conflicting key: %v", err)
		}
		ks, err := tx.HistoryKeys(g)
		if err != nil || len(ks) != 2 || string(ks[0].KeyID) != "k1" || ks[1].FromEpoch != 5 {
			t.Fatalf("keys %+v %v", ks, err)
		}
		if _, err := tx.HistoryKey(g, []byte("k9")); !errors.Is(err, ErrNotFound) {
			t.Fatalf("missing key: %v", err)
		}
		if err := tx.PutHistoryKey(HistoryKey{Group: g, KeyID: EpochKeyID(9), Scope: ScopeEpoch, Key: []byte("e9"), FromEpoch: 9}); err != nil {
			return err
		}
		if k, err := tx.LatestHistoryKey(g); err != nil || string(k.KeyID) != "k2" {
			t.Fatalf("latest history key %+v %v", k, err)
		}
		if k, err := tx.HistoryKey(g, EpochKeyID(9)); err != nil || k.Scope != ScopeEpoch || k.FromEpoch != 9 {
			t.Fatalf("epoch key %+v %v", k, err)
		}
		if _, err := tx.LatestHistoryKey(id("closed")); !errors.Is(err, ErrNotFound) {
			t.Fatalf("no history key: %v", err)
		}
		return nil
	})
}

func TestOutbox(t *testing.T) {
	s := openTest(t)
	g, me := id("general"), id("me")
	update(t, s, func(tx *Tx) error {
		if err := tx.PutGroup(Group{ID: g, Kind: GroupChannel, Name: "general"}); err != nil {
			return err
		}
		ctr, prev, err := tx.NextLink(g, me)
		if err != nil || ctr != 1 || !prev.IsZero() {
			t.Fatalf("first link %d %v", ctr, err)
		}
		if _, err := tx.PutEnvelope(env(g, me, 1, 1, wire.ZeroID, "sent")); err != nil {
			return err
		}
		ctr, prev, _ = tx.NextLink(g, me)
		if ctr != 2 {
			t.Fatalf("after a received own envelope: %d", ctr)
		}
		prev1 := prev
		id1, existed, err := tx.Enqueue(Outgoing{Group: g, IdempotencyKey: []byte("send 1"), Kind: wire.KindContent, Author: me, Ctr: 2, Hash: id("h2"), Envelope: []byte("e2")})
		if err != nil || existed {
			t.Fatalf("enqueue %v %v", existed, err)
		}
		again, existed, err := tx.Enqueue(Outgoing{Group: g, IdempotencyKey: []byte("send 1"), Kind: wire.KindContent, Author: me, Ctr: 3, Hash: id("h3"), Envelope: []byte("e3")})
		if err != nil || !existed || again != id1 {
			t.Fatalf("same idempotency key: %d %v %v", again, existed, err)
		}
		ctr, prev, _ = tx.NextLink(g, me)
		if ctr != 3 || prev != id("h2") {
			t.Fatalf("link after a queued envelope: %d", ctr)
		}
		if _, _, err := tx.Enqueue(Outgoing{Group: g, IdempotencyKey: []byte("send 2"), Kind: wire.KindContent, Author: me, Ctr: 3, Hash: id("h3"), Envelope: []byte("e3")}); err != nil {
			return err
		}
		if err := tx.RecordAttempt(id1, "net/closed"); err != nil {
			return err
		}
		out, err := tx.Outbox(10)
		if err != nil || len(out) != 2 || out[0].Ctr != 2 || out[0].Attempts != 1 || out[0].LastError != "net/closed" || out[1].Author != me {
			t.Fatalf("outbox %+v %v", out, err)
		}
		if err := tx.MarkSent(id1); err != nil {
			return err
		}
		if n, _ := tx.OutboxLen(); n != 1 {
			t.Fatalf("pending work %d", n)
		}
		if err := tx.MarkSent(id1); !errors.Is(err, ErrNotFound) {
			t.Fatalf("sent twice: %v", err)
		}
		if out, _ := tx.Outbox(10); len(out) != 1 || out[0].Ctr != 3 {
			t.Fatalf("sent envelope still offered: %+v", out)
		}
		// Accepted but not yet fetched back: the next link still counts it.
		if ctr, _, _ := tx.NextLink(g, me); ctr != 4 {
			t.Fatalf("next link after send: %d", ctr)
		}
		// It comes back in the log: the outbox row goes, the chain carries on.
		if _, err := tx.PutEnvelope(Envelope{Group: g, Seq: 2, Author: me, Ctr: 2, Prev: prev1, Hash: id("h2"), Kind: wire.KindContent, Bytes: []byte("e2")}); err != nil {
			return err
		}
		if _, _, err := tx.Enqueue(Outgoing{Group: g, IdempotencyKey: []byte("send 1"), Kind: wire.KindContent, Author: me, Ctr: 9, Hash: id("h9"), Envelope: []byte("e9")}); err != nil {
			return err
		}
		if n, _ := tx.OutboxLen(); n != 2 {
			t.Fatalf("after the envelope came back the same key queues again: %d", n)
		}
		return nil
	})
}

func TestDocuments(t *testing.T) {
	s := openTest(t)
	g := id("general")
	h1, h2 := [32]byte(id("h1")), [32]byte(id("h2"))
	update(t, s, func(tx *Tx) error {
		if err := tx.PutGroup(Group{ID: g, Kind: GroupChannel, Name: "general"}); err != nil {
			return err
		}
		d := Document{ID: id("shard"), Group: g, Kind: 2, Day: 20423, Saved: []byte("doc"), Heads: [][32]byte{h1}}
		if err := tx.PutDocument(d); err != nil {
			return err
		}
		if err := tx.PutDocument(Document{ID: id("index"), Group: g, Kind: 1, Saved: []byte("idx")}); err != nil {
			return err
		}
		if err := tx.SetSentHeads(d.ID, [][32]byte{h1}); err != nil {
			return err
		}
		d.Saved, d.Heads, d.Pending = []byte("doc2"), [][32]byte{h1, h2}, []byte("held")
		if err := tx.PutDocument(d); err != nil { // SentHeads nil: kept
			return err
		}
		got, err := tx.Document(d.ID)
		if err != nil || string(got.Saved) != "doc2" || len(got.Heads) != 2 || got.Heads[1] != h2 ||
			len(got.SentHeads) != 1 || got.SentHeads[0] != h1 || string(got.Pending) != "held" || got.Day != 20423 {
			t.Fatalf("document %+v %v", got, err)
		}
		all, err := tx.Documents(g)
		if err != nil || len(all) != 2 || all[0].Kind != 1 || len(all[0].Heads) != 0 {
			t.Fatalf("documents %+v %v", all, err)
		}
		if _, err := tx.Document(id("none")); !errors.Is(err, ErrNotFound) {
			t.Fatalf("missing: %v", err)
		}
		return nil
	})
}
