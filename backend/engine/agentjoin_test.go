package engine

import (
	"testing"

	"weald/backend/wire"
)

// A person who self-joins a channel an agent is in: the agent, which is in
// no root, judged the join forged ("the joining device is not in the
// workspace root"), raised join/forged, tried to evict the newcomer with a
// commit, and every member was told "a commit by agent … was refused:
// agents never commit". An agent now leaves joins to the members, commits
// nothing, and reads what the newcomer says.
func TestAgentLeavesAJoinToTheMembers(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t, 150)
	w.approve(t)
	lee := inviteAndJoin(t, w.r, w.dana, "lee", 153)
	mustSync(t, w.bot, w.dana, w.sam, lee)
	if _, err := lee.Send(testCtx(t), "general", "hello from lee"); err != nil {
		t.Fatal(err)
	}
	mustSync(t, w.bot, w.dana, w.sam)
	for name, e := range map[string]*Engine{"the agent": w.bot, "dana": w.dana, "sam": w.sam, "lee": lee} {
		e.mu.Lock()
		alerts := append([]Alert(nil), e.alerts...)
		e.mu.Unlock()
		for _, a := range alerts {
			if a.Code == "join/forged" || a.Code == "agent/commit" {
				t.Errorf("%s was told %s: %s", name, a.Code, a.Message)
			}
		}
	}
	botID := wire.ID(w.bot.agentID())
	if n := countCommits(t, w.dana, "general", func(env wire.Envelope) bool {
		return env.Kind == wire.KindMLSCommit && env.Author == botID
	}); n != 0 {
		t.Errorf("the agent sent %d commits into #general", n)
	}
	ms, err := w.bot.Messages(testCtx(t), "general", 0)
	if err != nil || len(ms) == 0 || ms[len(ms)-1].Text != "hello from lee" {
		t.Errorf("the agent reads #general: %+v %v", ms, err)
	}
}
