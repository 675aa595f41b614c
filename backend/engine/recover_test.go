package engine

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/relay"
	"weald/backend/roster"
	"weald/backend/wire"
)

// TestRecoverSoloAdmin: Dana, the only admin, loses her only device and
// recovers onto a new one with her phrase. The new device is on probation
// and the relay does not list it (nobody may); before the wait its
// recovery principal cannot approve it; after roster.ProbationWait (the
// relay's and the engine's clocks moved on) it approves itself, publishes
// the access set, connects with its own key and, as its last step,
// revokes the old device, which the relay then refuses. A wrong phrase
// recovers nothing (the caller removes the directory); a rotated-away phrase is
// roster/actor_revoked; the recover-device replayed is refused.
func TestRecoverSoloAdmin(t *testing.T) {
	t.Parallel()
	r, shift, clock, dana := clockedWorkspace(t, 140)
	ctx := testCtx(t)
	phrase, err := dana.TakeRecoveryPhrase(ctx)
	if err != nil || phrase == "" {
		t.Fatalf("phrase: %q %v", phrase, err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ws := dana.WorkspaceID()
	if set, err := r.svc.AccessSet(ctx, wire.ID(dana.meta.Workspace)); err != nil || len(set.Recovery) != 1 {
		rk, _ := dana.recoveryKeys()
		t.Fatalf("access set recovery keys %d (%v), roster %v", len(set.Recovery), err, rk.ID)
	}
	newOpts := func(name string, seed byte) Options {
		o := r.options(t, name, seed)
		o.Clock = clock
		return o
	}

	// A wrong phrase (valid words, nobody's) recovers nothing.
	other, _ := identity.NewRecoveryPhrase(seededRand(141))
	wrong := newOpts("wrong", 142)
	if _, _, err := Recover(ctx, wrong, r.URL, ws, joinPhrase(other)); !errors.Is(err, ErrRecoveryUnknown) {
		t.Fatalf("wrong phrase: %v", err)
	}

	// The right one: on probation, not listed.
	o := newOpts("dana2", 143)
	dana2, st, err := Recover(ctx, o, r.URL, ws, phrase)
	if !errors.Is(err, ErrRecoveryWaiting) || dana2 == nil {
		t.Fatalf("recover: %+v %v", st, err)
	}
	defer dana2.Close()
	if !st.Probation || st.Listed || st.ProbationEnds.IsZero() || st.User != identity.UserID(dana.meta.User).String() {
		t.Fatalf("status %+v", st)
	}
	// The old device is told.
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if !hasAlertCode(dana, "device/recovered") {
		t.Fatalf("the old device has no device/recovered alert: %+v", dana.Status().Alerts)
	}
	// Run again before the wait: the old device's sync listed it (an
	// admin's duty), still on probation, the old device still live.
	if st, err := dana2.RecoverAgain(ctx); err != nil || !st.Probation || !st.Listed || len(st.RevokedOld) != 0 {
		t.Fatalf("again: %+v %v", st, err)
	}

	// A thief with the same phrase, while the old device still acts: the
	// old device revokes the thief's device, which then never gets in.
	thief, _, err := Recover(ctx, newOpts("thief", 145), r.URL, ws, phrase)
	if thief == nil {
		t.Fatalf("thief: %v", err)
	}
	defer thief.Close()
	if _, err := dana.RevokeDevice(ctx, hexID(thief.devID).hex()); err != nil {
		t.Fatal(err)
	}

	// After the wait.
	shift.Store(int64(roster.ProbationWait + time.Minute))
	if _, err := thief.RecoverAgain(ctx); err == nil {
		t.Fatal("the revoked thief's device recovered")
	}
	st, err = dana2.RecoverAgain(ctx)
	if err != nil {
		t.Fatalf("after the wait: %+v %v", st, err)
	}
	if st.Probation || !st.Listed || len(st.RevokedOld) != 1 || st.RevokedOld[0] != dana.devID.String() {
		t.Fatalf("status after the wait %+v", st)
	}
	dana2.mu.Lock()
	admin := dana2.roster.IsAdmin(dana2.devID)
	oldLive := dana2.roster.DeviceLive(dana.devID)
	dana2.mu.Unlock()
	if !admin || oldLive {
		t.Fatalf("admin %v, old device live %v", admin, oldLive)
	}
	// The old device is refused by the relay.
	dana.mu.Lock()
	if dana.client != nil {
		dana.client.Close()
		dana.client = nil
	}
	dana.mu.Unlock()
	if _, err := dana.Sync(ctx); err == nil {
		t.Fatal("the revoked old device still syncs")
	} else if c, _ := errcode.Of(err); c != errcode.Code(wire.CodeAuthRevoked) && !strings.Contains(err.Error(), "revoked") {
		t.Fatalf("old device: %v", err)
	}
	// Done: running it again changes nothing.
	if _, err := dana2.RecoverAgain(ctx); err != nil {
		t.Fatalf("third run: %v", err)
	}

	// The phrase rotated away recovers nothing: roster/actor_revoked.
	if _, err := dana2.RotateRecovery(ctx); err != nil {
		t.Fatal(err)
	}
	late := newOpts("late", 144)
	if _, _, err := Recover(ctx, late, r.URL, ws, phrase); err == nil || !errors.Is(err, roster.ErrActorRevoked) {
		t.Fatalf("rotated phrase: %v", err)
	}
}

func hasAlertCode(e *Engine, code string) bool {
	for _, a := range e.Status().Alerts {
		if a.Code == code {
			return true
		}
	}
	return false
}

// TestRecoverMemberIntoEveryGroup: Sam lost his only device. He recovers
// onto a new one with his phrase: the new device is on probation, Dana's
// sync lists it and adds it to the root, to the private channel Sam was in
// and to their DM; it self-joins #general and reads the history there.
// Dana approves it; its last step revokes the old device, which the relay
// then refuses. A replayed recover-device is refused.
func TestRecoverMemberIntoEveryGroup(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 150)
	sam := inviteAndJoin(t, r, dana, "sam", 151)
	phrase, err := sam.TakeRecoveryPhrase(ctx)
	if err != nil || phrase == "" {
		t.Fatalf("phrase: %v", err)
	}
	if _, err := dana.Send(ctx, "general", "before the loss"); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.CreateChannel(ctx, "secret", roster.AdmissionExplicit); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.AddMembers(ctx, "secret", []identity.DeviceID{sam.devID}); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.SendDM(ctx, sam.meta.User.hex(), "a DM"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := sam.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if !sam.member(dana.roster.RootGroup()) {
		t.Fatal("sam not in the root")
	}
	if _, err := dana.Sync(ctx); err != nil { // lists Sam's recovery key
		t.Fatal(err)
	}
	sam.Close() // lost

	sam2, st, err := Recover(ctx, r.options(t, "sam2", 152), r.URL, dana.WorkspaceID(), phrase)
	if !errors.Is(err, ErrRecoveryWaiting) || sam2 == nil || !st.Probation || !st.ProbationEnds.IsZero() {
		t.Fatalf("recover: %+v %v", st, err)
	}
	defer sam2.Close()
	// Dana's sync lists it; its sync publishes key packages; Dana's adds it.
	for _, e := range []*Engine{dana, sam2, dana, sam2, dana, sam2} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatalf("sync: %v", err)
		}
	}
	for _, name := range []string{"secret", "general"} {
		gi, err := sam2.resolveChannel(name)
		if err != nil || !sam2.member(gi.Policy.Group) {
			t.Fatalf("the recovered device is not in %s: %v", name, err)
		}
	}
	if dm, err := sam2.resolveDM(dana.meta.User.hex()); err != nil || !sam2.member(dm.Policy.Group) {
		t.Fatalf("the recovered device is not in the DM: %v", err)
	}
	ms, err := sam2.Messages(ctx, "general", 10)
	if err != nil || len(ms) == 0 || ms[len(ms)-1].Text != "before the loss" && !containsText(ms, "before the loss") {
		t.Fatalf("history of #general: %+v %v", ms, err)
	}
	if !hasAlertCode(dana, "device/recovered") {
		t.Fatal("dana was not told")
	}
	// Dana approves; the recovered device revokes the old one.
	if _, err := dana.ApproveDevice(ctx, hexID(sam2.devID).hex()); err != nil {
		t.Fatal(err)
	}
	st, err = sam2.RecoverAgain(ctx)
	if err != nil || st.Probation || len(st.RevokedOld) != 1 || st.RevokedOld[0] != sam.devID.String() || !st.Finished {
		t.Fatalf("after approval: %+v %v", st, err)
	}
	if local, ok := sam2.Recovery(); !ok || !local.Finished || local.Probation || len(local.RevokedOld) != 1 {
		t.Fatalf("the local status after approval: %+v %v", local, ok)
	}
	if _, ok := dana.Recovery(); ok {
		t.Fatal("a device not recovered reports a recovery")
	}
	// The approval it waited for is a notice on the recovered device itself.
	told := 0
	for _, v := range viewsWith(t, sam2, string(AlertRosterChange)) {
		if v.Device == hexID(sam2.devID).hex() {
			told++
			if v.Tone != ToneNotice || !strings.HasSuffix(v.Summary, " approved this device: its probation after your recovery is over.") {
				t.Fatalf("the recovered device's view of its approval: %+v", v)
			}
		}
	}
	if told != 1 {
		t.Fatalf("the recovered device's views: %+v", sam2.AlertViews(ctx))
	}
	if _, err := dana.Sync(ctx); err != nil { // publishes the set without the old device
		t.Fatal(err)
	}
	old, err := Open(ctx, sam.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if _, err := old.Sync(ctx); err == nil || !strings.Contains(err.Error(), "revoked") {
		t.Fatalf("the old device after the recovery: %v", err)
	}
	// Replayed: the same recover-device again is refused (a device is admitted once).
	if _, err := recoverWith(t, r, dana, phrase, identity.UserID(sam2.meta.User), 152); err == nil {
		t.Fatal("a replayed recover-device was stored")
	}
}

func containsText(ms []Message, text string) bool {
	for _, m := range ms {
		if m.Text == text {
			return true
		}
	}
	return false
}

// TestBackdatedRecoveryCannotSkipTheWait is written from the side of a
// thief holding Dana's leaked phrase. Dana is the only admin and her
// roster has been quiet for longer than roster.ProbationWait, so a
// recover-device dated just after its last operation would let the thief's
// device approve itself at once (checkSelfApprove compares the two dates,
// both the signer's word). The relay takes a new recover-device only dated
// by its own clock; dated now, the thief's self-approval must wait, and
// Dana's device has the wait to see the alert and revoke it.
func TestBackdatedRecoveryCannotSkipTheWait(t *testing.T) {
	t.Parallel()
	var shift atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(shift.Load())) }
	r := startRelayWith(t, relay.Config{Clock: clock})
	ctx := testCtx(t)
	opts := r.options(t, "dana", 150)
	opts.Clock = clock
	dana, err := CreateWorkspace(ctx, opts, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer dana.Close()
	words, err := dana.TakeRecoveryPhrase(ctx)
	if err != nil || words == "" {
		t.Fatalf("phrase: %q %v", words, err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	rk := mustRecoveryKeys(t, words)
	thief, pop := newRecoveredDevice(t, dana, identity.UserID(dana.meta.User), 151)
	ws := wire.ID(dana.meta.Workspace)
	rec := wire.AuthOK{Kind: wire.PrincipalRecovery, Principal: wire.KeyID(rk.Signature.Public().Bytes())}
	lastOp := clock()
	shift.Store(int64(roster.ProbationWait + 8*time.Hour)) // the roster stays quiet

	head := dana.roster.Head()
	appendAs := func(at time.Time, b roster.Body) error {
		op, err := roster.Sign(roster.RecoverySigner(rk.Signature), head, at, b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err = r.svc.RosterAppend(ctx, ws, rec, wire.ID(head), op.Bytes()); err == nil {
			head = op.Head()
		}
		return err
	}
	recover := &roster.RecoverDevice{User: identity.UserID(dana.meta.User), Device: thief.Public(), Possession: pop}

	// Backdated to just after the last operation: refused, roster/stale.
	err = appendAs(lastOp.Add(time.Millisecond), recover)
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeRosterInvalid {
		t.Fatalf("backdated recover-device: %v, want %s", err, wire.CodeRosterInvalid)
	}
	if f, _ := we.Field("reason"); f.Text != string(roster.ErrStale.ErrorCode()) {
		t.Fatalf("backdated recover-device refused with reason %q, want %s", f.Text, roster.ErrStale.ErrorCode())
	}
	// Dated now it is taken, and the thief's own approval waits.
	if err := appendAs(clock(), recover); err != nil {
		t.Fatalf("recover-device dated now: %v", err)
	}
	thiefID := identity.DeviceIDOf(thief.Public())
	err = appendAs(clock(), &roster.ApproveDevice{Device: thiefID})
	if !errors.As(err, &we) || we.Code != wire.CodeRosterInvalid {
		t.Fatalf("self-approval at once: %v, want %s", err, wire.CodeRosterInvalid)
	}
	if f, _ := we.Field("reason"); f.Text != string(roster.ErrProbation.ErrorCode()) {
		t.Fatalf("self-approval at once refused with reason %q, want %s", f.Text, roster.ErrProbation.ErrorCode())
	}
	// Dana's device sees the recovery while it waits.
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if !hasAlertCode(dana, "device/recovered") {
		t.Fatalf("Dana's device has no device/recovered alert: %+v", dana.Status().Alerts)
	}
}

// mustRecoveryKeys derives the keys of a recovery phrase as whoever holds
// it would.
func mustRecoveryKeys(t *testing.T, words string) identity.RecoveryKeys {
	t.Helper()
	ph, err := identity.ParseRecoveryPhrase(words)
	if err != nil {
		t.Fatal(err)
	}
	rk, err := identity.DeriveRecoveryKeys(ph)
	if err != nil {
		t.Fatal(err)
	}
	return rk
}

// newRecoveredDevice makes a device key from seed and its proof of
// possession for a recover-device naming user in e's workspace.
func newRecoveredDevice(t *testing.T, e *Engine, user identity.UserID, seed byte) (identity.DevicePrivate, []byte) {
	t.Helper()
	dev, err := identity.GenerateKey[identity.Device](seededRand(seed))
	if err != nil {
		t.Fatal(err)
	}
	pop, err := roster.DevicePossession(e.wsID(), user, dev)
	if err != nil {
		t.Fatal(err)
	}
	return dev, pop
}

// TestRecoverAloneByWraps: Dana is alone in her workspace and loses her
// only device. Nobody can list or add the recovered device: after the wait
// it approves itself, publishes the access set, and enters the root and
// every channel against her recovery wraps, reading #general's history.
func TestRecoverAloneByWraps(t *testing.T) {
	t.Parallel()
	r, shift, clock, dana := clockedWorkspace(t, 160)
	ctx := testCtx(t)
	phrase, _ := dana.TakeRecoveryPhrase(ctx)
	if _, err := dana.Send(ctx, "general", "a note to myself"); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ws := dana.WorkspaceID()
	dana.Close() // lost

	o := r.options(t, "dana2", 161)
	o.Clock = clock
	dana2, st, err := Recover(ctx, o, r.URL, ws, phrase)
	if !errors.Is(err, ErrRecoveryWaiting) || dana2 == nil || !st.Probation {
		t.Fatalf("recover: %+v %v", st, err)
	}
	defer dana2.Close()
	shift.Store(int64(roster.ProbationWait + time.Minute))
	st, err = dana2.RecoverAgain(ctx)
	if err != nil || st.Probation || len(st.RevokedOld) != 1 || !st.Ready {
		t.Fatalf("after the wait: %+v %v", st, err)
	}
	for _, c := range dana2.Channels() {
		if !c.Member {
			t.Fatalf("not in %s", c.Name)
		}
	}
	ms, err := dana2.Messages(ctx, "general", 10)
	if err != nil || !containsText(ms, "a note to myself") {
		t.Fatalf("history: %+v %v", ms, err)
	}
	if dana2.meta.Recovery.Phrase != "" {
		t.Fatal("the phrase is still kept")
	}
}

// clockedWorkspace is a relay and a creator's workspace on a clock the
// test moves on by storing into shift.
func clockedWorkspace(t *testing.T, seed byte) (*testRelay, *atomic.Int64, func() time.Time, *Engine) {
	shift := new(atomic.Int64)
	clock := func() time.Time { return time.Now().Add(time.Duration(shift.Load())) }
	r := startRelayWith(t, relay.Config{Clock: clock})
	opts := r.options(t, "creator", seed)
	opts.Clock = clock
	e, err := CreateWorkspace(testCtx(t), opts, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return r, shift, clock, e
}
