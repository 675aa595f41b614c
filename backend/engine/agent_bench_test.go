package engine

import (
	"fmt"
	"testing"
	"time"

	"weald/backend/roster"
	"weald/backend/wire"
)

// The relay's request names (server frameName) of the key-package claims.
var (
	claimFrame     = fmt.Sprintf("0x%02x", uint8(wire.FrameKeyPackageClaim))
	claimManyFrame = fmt.Sprintf("0x%02x", uint8(wire.FrameKeyPackageClaimBatch))
)

// BenchmarkApproveAgentTwentyGroups measures approving an agent for 20
// channels (issue 13 goal: under 1 s): the approval (certificate, roster,
// access set) plus the owner's sync that adds the agent to all 20, once
// the agent has connected (its own sync, not timed, in between).
func BenchmarkApproveAgentTwentyGroups(b *testing.B) {
	r := startRelay(b)
	ctx := testCtx(b)
	dana := createWorkspace(b, r, 180)
	var scope []string
	for i := 0; i < 20; i++ {
		name := fmt.Sprintf("chan-%02d", i)
		if _, err := dana.CreateChannel(ctx, name, roster.AdmissionParent); err != nil {
			b.Fatal(err)
		}
		scope = append(scope, name)
	}
	b.ResetTimer()
	var sends uint64        // SEND requests the relay took in the timed parts
	var reqs, claims uint64 // all requests in the timed parts; key-package claims among them
	count := func() (all, claim uint64) {
		for f, n := range r.requests(b) {
			all += n
			if f == claimFrame || f == claimManyFrame {
				claim += n
			}
		}
		return all, claim
	}
	for n := 0; n < b.N; n++ {
		b.StopTimer()
		bot, req, err := CreateAgent(ctx, r.options(b, fmt.Sprintf("bot-%d", n), byte(190+n)), r.URL, dana.WorkspaceID(), "bot", scope, time.Hour)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		f0, g0 := r.svc.AcceptPaths()
		a0, c0 := count()
		if _, err := dana.ApproveAgent(ctx, req); err != nil {
			b.Fatal(err)
		}
		f1, g1 := r.svc.AcceptPaths()
		a1, c1 := count()
		sends += f1 + g1 - f0 - g0
		reqs, claims = reqs+a1-a0, claims+c1-c0
		b.StopTimer()
		if _, err := bot.Sync(ctx); err != nil { // connects, key packages
			b.Fatal(err)
		}
		b.StartTimer()
		f0, g0 = r.svc.AcceptPaths()
		a0, c0 = count()
		if _, err := dana.Sync(ctx); err != nil { // the 20 adds
			b.Fatal(err)
		}
		f1, g1 = r.svc.AcceptPaths()
		a1, c1 = count()
		sends += f1 + g1 - f0 - g0
		reqs, claims = reqs+a1-a0, claims+c1-c0
		b.StopTimer()
		in := 0
		for _, v := range dana.Agents()[n].Scope {
			if v.Member {
				in++
			}
		}
		if in != 20 {
			b.Fatalf("the agent is in %d of 20 channels", in)
		}
		bot.Close()
		b.StartTimer()
	}
	if testing.Verbose() {
		b.Logf("requests by frame after %d ops: %v", b.N, r.requests(b))
	}
	b.ReportMetric(float64(sends)/float64(b.N), "sends/op")
	b.ReportMetric(float64(reqs)/float64(b.N), "requests/op")
	b.ReportMetric(float64(claims)/float64(b.N), "claims/op")
}

// Adding an approved agent to 5 channels takes one key-package claim
// request for all 5 and one SEND of commits, one of Welcomes and one of the
// channels' bundles (plus the Welcome notice), not one claim and one bundle
// SEND per channel.
func TestAgentAddsClaimAndPublishOnce(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 185)
	var scope []string
	for i := 0; i < 5; i++ {
		name := fmt.Sprintf("chan-%02d", i)
		if _, err := dana.CreateChannel(ctx, name, roster.AdmissionParent); err != nil {
			t.Fatal(err)
		}
		scope = append(scope, name)
	}
	bot, req, err := CreateAgent(ctx, r.options(t, "bot", 186), r.URL, dana.WorkspaceID(), "bot", scope, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer bot.Close()
	if _, err := dana.ApproveAgent(ctx, req); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Sync(ctx); err != nil { // what is due after the creations
		t.Fatal(err)
	}
	if _, err := bot.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	before := r.requests(t)
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	after := r.requests(t)
	send := fmt.Sprintf("0x%02x", uint8(wire.FrameSend))
	claims := after[claimFrame] + after[claimManyFrame] - before[claimFrame] - before[claimManyFrame]
	sends := after[send] - before[send]
	if claims != 1 || sends > 3 {
		t.Fatalf("the adds took %d claim requests and %d SENDs; want 1 and at most 3", claims, sends)
	}
	in := 0
	for _, v := range dana.Agents()[0].Scope {
		if v.Member {
			in++
		}
	}
	if in != 5 {
		t.Fatalf("the agent is in %d of 5 channels", in)
	}
}
