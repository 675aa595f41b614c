package engine

import (
	"fmt"
	"testing"
	"time"

	"weald/backend/roster"
)

// spec/channels.md "What this fixes", second story: chan:design holds 200
// messages before the newcomer arrives and is not in its invite scopes; the
// newcomer self-joins it and reads all 200.
func TestNewcomerReadsOpenChannelHistory(t *testing.T) {
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
