package engine

import (
	"testing"
	"time"

	"weald/backend/roster"
)

// countAlerts counts e's kept alerts with code.
func countAlerts(e *Engine, code string) int {
	n := 0
	for _, a := range e.Status().Alerts {
		if a.Code == code {
			n++
		}
	}
	return n
}

// TestSoloAdminIsRemindedOnce (spec/lifecycle.md "Key compromise"): Dana,
// the only admin, is told once, as a notice, after the first other person
// joins; not while she is alone, not again when a third person joins, not
// after a restart, and never on a member's device. A workspace whose first
// joiner is a second admin never shows it. (The desktop calls
// RemindSoloAdmin after each roster change, as this test does after each
// sync.)
func TestSoloAdminIsRemindedOnce(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	opts := r.options(t, "dana", 160)
	dana, err := CreateWorkspace(ctx, opts, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	dana.RemindSoloAdmin(ctx)
	code := string(AlertSoloAdmin)
	if n := countAlerts(dana, code); n != 0 {
		t.Fatalf("alone in her workspace Dana was told %d times", n)
	}
	sam := inviteAndJoin(t, r, dana, "sam", 161)
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	dana.RemindSoloAdmin(ctx)
	if n := countAlerts(dana, code); n != 1 {
		t.Fatalf("after Sam joined Dana was told %d times, want once", n)
	}
	var tone AlertTone
	for _, v := range dana.AlertViews(ctx) {
		if v.Code == code {
			tone = v.Tone
		}
	}
	if tone != ToneNotice {
		t.Fatalf("the reminder's tone is %q, want %q", tone, ToneNotice)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	sam.RemindSoloAdmin(ctx)
	if n := countAlerts(sam, code); n != 0 {
		t.Fatalf("Sam, a member, was told %d times", n)
	}
	inviteAndJoin(t, r, dana, "lee", 162)
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	dana.RemindSoloAdmin(ctx)
	dana.Close()
	dana, err = Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer dana.Close()
	inviteAndJoin(t, r, dana, "kim", 163)
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	dana.RemindSoloAdmin(ctx)
	if n := countAlerts(dana, code); n != 1 {
		t.Fatalf("after two more joins and a restart Dana was told %d times, want still once", n)
	}

	// Another workspace: the first to join is a second admin.
	alex := createWorkspace(t, r, 164)
	link, err := alex.CreateInvite(ctx, nil, roster.RoleAdmin, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	joinWith(t, r, link, "bo", 165)
	if _, err := alex.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	alex.RemindSoloAdmin(ctx)
	if n := countAlerts(alex, code); n != 0 {
		t.Fatalf("with a second admin Alex was told %d times", n)
	}
}
