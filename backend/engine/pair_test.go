package engine

import (
	"strings"
	"testing"
	"time"

	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/wire"
)

// Issue 13 "A second device pairs, joins every entitled group and sends
// as the same person": Sam (a member) pairs a second device; it reads
// #general's history, enters the private channel and the DM Sam's first
// device is in, and what it sends reads as Sam's on Dana's side. From the
// attacker's side: the link used a second time, a pairing written for
// somebody else and a forged admit-device are all refused.
func TestPairSecondDevice(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 80)
	invite, err := dana.CreateInvite(ctx, []string{"general"}, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	sam := joinWith(t, r, invite, "sam", 81)
	if err := sam.SetDisplayName(ctx, "Sam"); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil { // key packages
		t.Fatal(err)
	}
	if _, err := dana.CreateChannel(ctx, "secret", roster.AdmissionExplicit); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.AddPeople(ctx, "secret", []string{sam.meta.User.hex()}); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.SendDM(ctx, sam.meta.User.hex(), "hello sam"); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Send(ctx, "general", "before the pairing"); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}

	p, err := sam.PairDevice(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.Published || !strings.HasPrefix(p.Link, "weald://pair?") {
		t.Fatalf("a member's pairing: %+v", p)
	}
	// Before an admin publishes it the relay does not know the link, and
	// the refused device leaves nothing behind.
	if _, err := Join(ctx, r.options(t, "early", 82), p.Link); codeOf(err) != "pair/not_published" {
		t.Fatalf("unpublished pairing: %v", err)
	}
	if _, err := dana.Sync(ctx); err != nil { // publishes the grant
		t.Fatal(err)
	}

	sam2 := joinWith(t, r, p.Link, "sam-laptop", 83)
	if sam2.Status().User != sam.Status().User || sam2.DisplayName() != "Sam" {
		t.Fatalf("second device is user %s (%q), want %s", sam2.Status().User, sam2.DisplayName(), sam.Status().User)
	}

	// The link once more: the relay binds its grant to one device key.
	if _, err := Join(ctx, r.options(t, "thief", 84), p.Link); codeOf(err) != string(wire.CodeAuthGrantUsed) {
		t.Fatalf("second use of the link: %v, want %s", err, wire.CodeAuthGrantUsed)
	}

	// Sam's first device adds the new one to the private channel; Dana's
	// (or Sam's) adds it to the DM.
	for _, e := range []*Engine{sam, dana, sam2} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if devs := sam.Devices(); len(devs) != 2 {
		t.Fatalf("sam's devices %+v", devs)
	}
	// Dana is told (spec/lifecycle.md "Detection"); Sam's devices are not:
	// Sam did it.
	if !hasAlert(dana, "a new device of Sam by a pairing link") || hasAlert(sam, "pairing") {
		t.Fatalf("alerts: dana %+v, sam %+v", dana.Status().Alerts, sam.Status().Alerts)
	}
	readsOnly(t, sam2, "secret")
	gen, err := sam2.Messages(ctx, "general", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !hasText(gen, "before the pairing") {
		t.Fatalf("the second device does not read #general's history: %+v", gen)
	}
	if _, err := sam2.Send(ctx, "secret", "from my laptop"); err != nil {
		t.Fatal(err)
	}
	dm, err := sam2.SendDM(ctx, dana.meta.User.hex(), "laptop says hi")
	if err != nil {
		t.Fatal(err)
	}
	if dm.Message.State != "" {
		t.Fatalf("the DM from the second device waits: %+v", dm)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ms, err := dana.Messages(ctx, "secret", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].Text != "from my laptop" || ms[0].Author != sam.meta.User.hex() || ms[0].AuthorName != "Sam" {
		t.Fatalf("dana reads in #secret %+v", ms)
	}
	dms, err := dana.Messages(ctx, dm.Channel, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !hasText(dms, "hello sam") || !hasText(dms, "laptop says hi") || dms[len(dms)-1].Author != sam.meta.User.hex() {
		t.Fatalf("dana reads in the DM %+v", dms)
	}

	// Forged device authorizations: Lee writes a pairing for Sam, and an
	// admit-device of Lee's key under Sam's user. The relay refuses both.
	lee := inviteAndJoin(t, r, dana, "lee", 85)
	head := lee.roster.Head()
	lee.mu.Lock()
	err = lee.appendRoster(ctx, func() (roster.Body, error) {
		b, _, err := roster.NewPairing(lee.rand, identity.UserID(sam.meta.User), lee.now().Add(time.Minute*10), make([]byte, 32))
		return b, err
	})
	lee.mu.Unlock()
	if !strings.Contains(err.Error(), "roster/not_authorized") {
		t.Fatalf("a pairing for somebody else: %v", err)
	}
	pop, _ := roster.DevicePossession(lee.wsID(), identity.UserID(sam.meta.User), lee.dev)
	lee.mu.Lock()
	err = lee.appendRoster(ctx, func() (roster.Body, error) {
		return &roster.AdmitDevice{User: identity.UserID(sam.meta.User), Device: lee.dev.Public(), Possession: pop}, nil
	})
	lee.mu.Unlock()
	if err == nil || !strings.Contains(err.Error(), "roster/") {
		t.Fatalf("a forged admit-device: %v", err)
	}
	if _, err := lee.syncRoster(ctx); err != nil {
		t.Fatal(err)
	}
	if lee.roster.Head() != head {
		t.Fatal("a refused operation reached the roster")
	}
	if devs := sam.Devices(); len(devs) != 2 {
		t.Fatalf("sam's devices after the attacks %+v", devs)
	}
}

func hasText(ms []Message, text string) bool {
	for _, m := range ms {
		if m.Text == text {
			return true
		}
	}
	return false
}

func hasAlert(e *Engine, text string) bool {
	for _, a := range e.Status().Alerts {
		if strings.Contains(a.Message, text) {
			return true
		}
	}
	return false
}
