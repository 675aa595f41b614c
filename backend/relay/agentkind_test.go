package relay

import (
	"testing"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// From a compromised agent key's side (docs/protocol/agents.md: an agent
// posts content and nothing else): its content is taken, but a commit, a
// proposal, a bundle or a retention record is refused with auth/agent_kind
// and leaves the log as it was, alone or behind content in one batch (which
// the fast path, once the agent's chain is known, must not take either).
// Before, the relay logged an agent's commit; members ignored it, but one
// for the current epoch would make each newcomer read the channel's
// GroupInfo as stale.
func TestAgentSendsOnlyContent(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		g := id("general")
		agent := wire.AuthOK{Kind: wire.PrincipalAgent, Principal: wire.KeyID(pub(key("agent")))}
		send := func(envs ...wire.Envelope) error { _, _, err := f.svc.Send(f.ctx, f.ws, agent, envs); return err }
		f.mustSend("alice", f.next("alice", g, wire.KindMLSCommit, []byte("the group's first commit")))
		if err := send(f.next("agent", g, wire.KindContent, []byte("a post"))); err != nil {
			t.Fatalf("the agent's content: %v", err)
		}
		for _, kind := range []wire.Kind{wire.KindMLSCommit, wire.KindMLSProposal, wire.KindGroupInfoPublish,
			wire.KindHistoryPublish, wire.KindRetentionPolicy, wire.KindRecoveryWrap} {
			saved := f.saveChains()
			alone := f.next("agent", g, kind, []byte("not content"))
			we := f.refused(wire.CodeAuthAgentKind, func() error { return send(alone) })
			f.restoreChains(saved)
			post, other := f.next("agent", g, wire.KindContent, []byte("content first")), f.next("agent", g, kind, []byte("then this"))
			we2 := f.refused(wire.CodeAuthAgentKind, func() error { return send(post, other) })
			f.restoreChains(saved)
			if we.Sentence == "" || we2.Sentence == "" {
				t.Fatalf("kind %#x: refused without a sentence", kind)
			}
		}
		if err := send(f.next("agent", g, wire.KindContent, []byte("still posting"))); err != nil {
			t.Fatalf("the agent's content after the refusals: %v", err)
		}
	})
}
