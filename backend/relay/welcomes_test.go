package relay

import (
	"testing"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// A Welcome notice is kept only for a Welcome envelope its sender authored,
// only for keys of the workspace, at most wire.MaxWelcomesKept per key (the
// newest), and only the key it names reads and clears it
// (docs/protocol/wire.md "Welcome notices").
func TestWelcomeNoticeRefusedUnlessOwnWelcome(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		alice, bob := principal("alice"), principal("bob")
		g := id("group")
		acks := f.mustSend("alice", f.next("alice", g, wire.KindContent, []byte("c")), f.next("alice", g, wire.KindMLSWelcome, []byte("w")))
		content, welcome := acks[0].Seq, acks[1].Seq
		stranger := wire.KeyID(pub(key("stranger")))
		agent := wire.KeyID(pub(key("agent")))
		notice := func(p wire.AuthOK, seq uint64, to ...wire.ID) error {
			return f.svc.WelcomeNotice(f.ctx, f.ws, p, wire.WelcomeNotice{Welcomes: []wire.WelcomeRef{{Group: g, Seq: seq}}, To: to})
		}
		// Not a Welcome, not the sender's, no such seq, no key, a recovery key;
		// one of two not a Welcome refuses both.
		wantCode(t, f.svc.WelcomeNotice(f.ctx, f.ws, alice, wire.WelcomeNotice{
			Welcomes: []wire.WelcomeRef{{Group: g, Seq: welcome}, {Group: g, Seq: content}}, To: []wire.ID{bob.Principal}}), wire.CodeBadObject)
		wantCode(t, notice(alice, content, bob.Principal), wire.CodeBadObject)
		wantCode(t, notice(bob, welcome, bob.Principal), wire.CodeBadObject)
		wantCode(t, notice(alice, welcome+5, bob.Principal), wire.CodeBadObject)
		wantCode(t, notice(alice, 0, bob.Principal), wire.CodeBadObject)
		wantCode(t, notice(alice, welcome), wire.CodeMalformed)
		wantCode(t, notice(wire.AuthOK{Kind: wire.PrincipalRecovery, Principal: wire.KeyID(pub(key("recovery")))}, welcome, bob.Principal), wire.CodeKeyPackageKind)
		wantCode(t, notice(principal("stranger"), welcome, bob.Principal), wire.CodeAuthRevoked)
		if got, _ := f.svc.Welcomes(f.ctx, f.ws, bob); len(got.Items) != 0 {
			t.Fatalf("a refused notice was kept: %+v", got.Items)
		}
		// A stranger's key gets nothing; bob and the agent one notice each,
		// kept once however often it is sent.
		for i := 0; i < 2; i++ {
			if err := notice(alice, welcome, bob.Principal, stranger, agent); err != nil {
				t.Fatal(err)
			}
		}
		want := wire.WelcomeRef{Group: g, Seq: welcome}
		for _, p := range []wire.AuthOK{bob, {Kind: wire.PrincipalAgent, Principal: agent}} {
			got, err := f.svc.Welcomes(f.ctx, f.ws, p)
			if err != nil || len(got.Items) != 1 || got.Items[0] != want {
				t.Fatalf("notices of %s = %+v, %v", p.Principal.Short(), got, err)
			}
		}
		for _, p := range []wire.AuthOK{alice, principal("stranger")} {
			if got, _ := f.svc.Welcomes(f.ctx, f.ws, p); len(got.Items) != 0 {
				t.Fatalf("%s has notices: %+v", p.Principal.Short(), got.Items)
			}
		}
		// Alice clearing bob's notice clears nothing of bob's.
		if err := f.svc.WelcomesDone(f.ctx, f.ws, alice, []wire.WelcomeRef{want}); err != nil {
			t.Fatal(err)
		}
		wantCode(t, f.svc.WelcomesDone(f.ctx, f.ws, bob, nil), wire.CodeMalformed)
		if got, _ := f.svc.Welcomes(f.ctx, f.ws, bob); len(got.Items) != 1 {
			t.Fatalf("bob's notice went: %+v", got.Items)
		}
		if err := f.svc.WelcomesDone(f.ctx, f.ws, bob, []wire.WelcomeRef{want}); err != nil {
			t.Fatal(err)
		}
		if got, _ := f.svc.Welcomes(f.ctx, f.ws, bob); len(got.Items) != 0 {
			t.Fatalf("bob's notice stayed: %+v", got.Items)
		}
		// The newest MaxWelcomesKept per key are kept (a device added to
		// every group of a workspace while away loses none), served a page
		// of MaxWelcomes at a time, oldest first.
		var last uint64
		for sent := 0; sent < wire.MaxWelcomesKept+3; {
			envs := make([]wire.Envelope, min(wire.MaxWelcomes, wire.MaxWelcomesKept+3-sent))
			for i := range envs {
				envs[i] = f.next("alice", g, wire.KindMLSWelcome, []byte{'w', byte(sent + i)})
			}
			var refs []wire.WelcomeRef
			for _, a := range f.mustSend("alice", envs...) {
				refs = append(refs, wire.WelcomeRef{Group: g, Seq: a.Seq})
				last = a.Seq
			}
			if err := f.svc.WelcomeNotice(f.ctx, f.ws, alice, wire.WelcomeNotice{Welcomes: refs, To: []wire.ID{bob.Principal}}); err != nil {
				t.Fatal(err)
			}
			sent += len(envs)
		}
		var kept []wire.WelcomeRef
		for page := 0; page <= wire.MaxWelcomesKept/wire.MaxWelcomes+1; page++ {
			got, err := f.svc.Welcomes(f.ctx, f.ws, bob)
			if err != nil || len(got.Items) > wire.MaxWelcomes {
				t.Fatalf("page %d: %d notices, %v", page, len(got.Items), err)
			}
			if len(got.Items) == 0 {
				break
			}
			kept = append(kept, got.Items...)
			if err := f.svc.WelcomesDone(f.ctx, f.ws, bob, got.Items); err != nil {
				t.Fatal(err)
			}
		}
		if len(kept) != wire.MaxWelcomesKept || kept[0].Seq != last-wire.MaxWelcomesKept+1 || kept[len(kept)-1].Seq != last {
			t.Fatalf("after %d notices: %d kept, from %d to %d (last %d)", wire.MaxWelcomesKept+3, len(kept),
				kept[0].Seq, kept[len(kept)-1].Seq, last)
		}
	})
}
