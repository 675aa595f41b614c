package engine

import (
	"errors"
	"strings"
	"testing"

	"weald/backend/health"
	"weald/backend/roster"
)

// Issue 14 (spec/lifecycle.md "Ongoing health"): the only admin registers a
// recovery quorum, which clears the health row; after she loses her only
// device and recovers from her phrase, two vouches of the quorum (not the
// 72 h wait) make the recovered device a full admin device that revokes
// the lost one.
func TestRecoveryQuorumVouchesEndProbation(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 160)
	sam := inviteAndJoin(t, r, dana, "sam", 161)
	lee := inviteAndJoin(t, r, dana, "lee", 162)
	kim := inviteAndJoin(t, r, dana, "kim", 163)
	phrase, err := dana.TakeRecoveryPhrase(ctx)
	if err != nil || phrase == "" {
		t.Fatalf("phrase: %v", err)
	}
	ids := func(es ...*Engine) (out []string) {
		for _, e := range es {
			out = append(out, e.meta.User.hex())
		}
		return out
	}
	f := finding(t, runHealth(t, dana), health.AdminDevices, health.StateAction)
	if !strings.Contains(f.Finding, "register a recovery quorum") {
		t.Fatalf("the failure does not name the quorum: %q", f.Finding)
	}
	if _, err := sam.SetRecoveryQuorum(ctx, ids(sam, lee), 1); !errors.Is(err, ErrQuorumNotAdmin) {
		t.Fatalf("a member registered a quorum: %v", err)
	}
	if _, err := dana.SetRecoveryQuorum(ctx, ids(sam, lee), 3); !errors.Is(err, ErrQuorumThreshold) {
		t.Fatalf("threshold 3 of 2: %v", err)
	}
	q, err := dana.SetRecoveryQuorum(ctx, ids(sam, lee, kim), 2)
	if err != nil || !q.Live || q.Threshold != 2 || len(q.Members) != 3 || q.Members[0].User != sam.meta.User.hex() || !q.Members[2].Active {
		t.Fatalf("quorum: %+v %v", q, err)
	}
	f = finding(t, runHealth(t, dana), health.AdminDevices, health.StateOK)
	if !strings.Contains(f.Finding, "registered recovery quorum") {
		t.Fatalf("ok finding: %q", f.Finding)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	dana.Close() // lost

	dana2, st, err := Recover(ctx, r.options(t, "dana2", 164), r.URL, dana.WorkspaceID(), phrase)
	if !errors.Is(err, ErrRecoveryWaiting) || dana2 == nil || !st.Probation || !st.ProbationEnds.IsZero() {
		t.Fatalf("recover: %+v %v", st, err)
	}
	defer dana2.Close()
	did := hexID(dana2.devID).hex()
	// Each quorum member is asked to vouch, in words that say how.
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	asked := false
	for _, a := range sam.Status().Alerts {
		asked = asked || a.Code == string(AlertRecoveredDevice) &&
			strings.Contains(a.Message, "until an admin approves it or 2 members of the recovery quorum vouch for it") &&
			strings.Contains(a.Message, "weald recovery vouch "+did[:16])
	}
	if !asked {
		t.Fatalf("sam was not asked to vouch: %+v", sam.Status().Alerts)
	}
	canVouch := func(e *Engine) bool {
		for _, v := range e.AlertViews(ctx) {
			if v.Device == did && v.Vouch {
				return true
			}
		}
		return false
	}
	if !canVouch(sam) || canVouch(dana2) {
		t.Fatal("the Security view's vouch is offered to the wrong devices")
	}
	// One vouch is not enough; a second from the same person is refused.
	v, err := sam.VouchDevice(ctx, did)
	if err != nil || !v.Probation || v.Vouches != 1 || v.Threshold != 2 {
		t.Fatalf("first vouch: %+v %v", v, err)
	}
	if canVouch(sam) {
		t.Fatal("vouch still offered after vouching")
	}
	if _, err := sam.VouchDevice(ctx, did); !errors.Is(err, roster.ErrDuplicate) {
		t.Fatal("sam vouched twice")
	}
	if st, err := dana2.RecoverAgain(ctx); !errors.Is(err, ErrRecoveryWaiting) || !st.Probation {
		t.Fatalf("after one vouch: %+v %v", st, err)
	}
	v, err = lee.VouchDevice(ctx, did)
	if err != nil || v.Probation || v.Vouches != 2 {
		t.Fatalf("second vouch: %+v %v", v, err)
	}
	st, err = dana2.RecoverAgain(ctx)
	if err != nil || st.Probation || len(st.RevokedOld) != 1 || st.RevokedOld[0] != dana.devID.String() || !st.Finished {
		t.Fatalf("after two vouches: %+v %v", st, err)
	}
	if !dana2.roster.IsAdmin(dana2.devID) {
		t.Fatal("the recovered device is no admin device")
	}
	// A vouch after the probation ended is refused, and kim was never needed.
	if _, err := kim.VouchDevice(ctx, did); !errors.Is(err, ErrNotOnProbation) {
		t.Fatalf("late vouch: %v", err)
	}
	// The recovered device holds admin authority at the relay too: it registers a new quorum.
	if q, err := dana2.SetRecoveryQuorum(ctx, ids(sam, lee), 2); err != nil || !q.Live {
		t.Fatalf("the recovered admin registers a quorum: %+v %v", q, err)
	}
}
