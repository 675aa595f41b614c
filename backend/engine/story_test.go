package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/wire"
)

// spec/channels.md "What this fixes", second story: chan:design holds 200
// messages before the newcomer arrives and is not in its invite scopes; the
// newcomer self-joins it and reads all 200.
func TestNewcomerReadsOpenChannelHistory(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 50)
	if _, err := dana.CreateChannel(ctx, "design", roster.AdmissionParent); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if _, err := dana.Send(ctx, "design", fmt.Sprintf("design note %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	link, err := dana.CreateInvite(ctx, []string{"general"}, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	dana.Close() // nobody else online
	sam := joinWith(t, r, link, "sam", 51)
	ms, err := sam.Messages(ctx, "design", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 200 {
		t.Fatalf("sam reads %d messages of #design, want 200", len(ms))
	}
	seen := map[string]bool{}
	for _, m := range ms {
		seen[m.Text] = true
	}
	for i := 0; i < 200; i++ {
		if !seen[fmt.Sprintf("design note %d", i)] {
			t.Fatalf("message %d missing", i)
		}
	}
	for _, c := range sam.Channels() {
		if !c.Member {
			t.Errorf("sam is not in %s", c.Name)
		}
	}
}

// A closed group's joiner sees nothing from before; an open group's joiner
// sees everything (spec/channels.md "Group policy", lock states).
func TestClosedGroupJoinerSeesNothingBefore(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 55)
	ch, err := dana.CreateChannel(ctx, "secret", roster.AdmissionExplicit)
	if err != nil {
		t.Fatal(err)
	}
	if ch.History != "closed" || ch.Admission != "explicit" {
		t.Fatalf("policy %+v", ch)
	}
	if _, err := dana.Send(ctx, "secret", "before sam"); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Send(ctx, "general", "open history"); err != nil {
		t.Fatal(err)
	}
	link, err := dana.CreateInvite(ctx, []string{"general"}, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	sam := joinWith(t, r, link, "sam", 56)
	if _, err := sam.Sync(ctx); err != nil { // uploads key packages
		t.Fatal(err)
	}
	for _, c := range sam.Channels() {
		if c.Name == "secret" && c.Member {
			t.Fatal("sam self-joined an explicit channel")
		}
	}
	if _, err := dana.AddMembers(ctx, "secret", []identity.DeviceID{sam.DeviceID()}); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Send(ctx, "secret", "after sam"); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ms, err := sam.Messages(ctx, "secret", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].Text != "after sam" {
		t.Fatalf("sam reads %+v in the closed channel, want only the message after joining", ms)
	}
	if ms, err := sam.Messages(ctx, "general", 0); err != nil || len(ms) != 1 || ms[0].Text != "open history" {
		t.Fatalf("sam reads %+v %v in #general, want the earlier message", ms, err)
	}
	// Sam can write to the closed channel; Dana reads it.
	if _, err := sam.Send(ctx, "secret", "sam here"); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ms, err = dana.Messages(ctx, "secret", 0)
	if err != nil || len(ms) != 3 {
		t.Fatalf("dana reads %d messages: %v", len(ms), err)
	}
}

// A self-joiner emits a recovery.wrap for its own recovery key with its
// external commit (spec/channels.md "The join" step 4), openable with the
// phrase, which is handed out once.
func TestSelfJoinEmitsRecoveryWrap(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 57)
	sam := inviteAndJoin(t, r, dana, "sam", 58)
	words, err := sam.TakeRecoveryPhrase(ctx)
	if err != nil || len(strings.Fields(words)) != 24 {
		t.Fatalf("phrase %d words, %v", len(strings.Fields(words)), err)
	}
	if again, _ := sam.TakeRecoveryPhrase(ctx); again != "" {
		t.Fatal("the phrase was handed out twice")
	}
	phrase, err := identity.ParseRecoveryPhrase(words)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := identity.DeriveRecoveryKeys(phrase)
	priv, _ := keys.HPKE.Key().Bytes()
	general := roster.GeneralGroupID(sam.wsID())
	sam.mu.Lock()
	envs, err := sam.fetchAll(ctx, wire.ID(general), 0)
	sam.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	opened := 0
	for i, se := range envs {
		if se.Envelope.Kind != wire.KindRecoveryWrap || se.Envelope.Author != wire.ID(sam.DeviceID()) {
			continue
		}
		if i == 0 || envs[i-1].Envelope.Kind != wire.KindMLSCommit || envs[i-1].Envelope.Author != se.Envelope.Author {
			t.Fatal("the wrap does not follow its join commit in the same batch")
		}
		w, err := groups.DecodeRecoveryWrap(se.Envelope.CT)
		if err != nil {
			t.Fatal(err)
		}
		p, err := groups.OpenRecoveryWrap(priv, [32]byte(general), &w)
		if err != nil || len(p.GroupInfo) == 0 || len(p.History) == 0 {
			t.Fatalf("wrap: %+v %v", p, err)
		}
		opened++
	}
	if opened != 1 {
		t.Fatalf("%d recovery wraps of sam in #general, want 1", opened)
	}
}

// Shards are stored as a base plus a change log folded every maxShardLog
// changes; a reopened engine reads every message.
func TestShardLogSurvivesReopen(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	opts := r.options(t, "dana", 59)
	e, err := CreateWorkspace(ctx, opts, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	n := maxShardLog + 10
	for i := 0; i < n; i++ {
		if _, err := e.Send(ctx, "general", fmt.Sprintf("m%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	e.Close()
	e, err = Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ms, err := e.Messages(ctx, "general", 0)
	if err != nil || len(ms) != n {
		t.Fatalf("read %d of %d messages after reopening: %v", len(ms), n, err)
	}
	if _, err := e.Send(ctx, "general", "after reopening"); err != nil {
		t.Fatal(err)
	}
	if ms, _ := e.Messages(ctx, "general", 1); len(ms) != 1 || ms[0].Text != "after reopening" {
		t.Fatalf("last message %+v", ms)
	}
}
