package engine

import (
	"fmt"
	"testing"
	"time"

	"weald/backend/roster"
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
	var sends uint64 // SEND requests the relay took in the timed parts
	for n := 0; n < b.N; n++ {
		b.StopTimer()
		bot, req, err := CreateAgent(ctx, r.options(b, fmt.Sprintf("bot-%d", n), byte(190+n)), r.URL, dana.WorkspaceID(), "bot", scope, time.Hour)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		f0, g0 := r.svc.AcceptPaths()
		if _, err := dana.ApproveAgent(ctx, req); err != nil {
			b.Fatal(err)
		}
		f1, g1 := r.svc.AcceptPaths()
		sends += f1 + g1 - f0 - g0
		b.StopTimer()
		if _, err := bot.Sync(ctx); err != nil { // connects, key packages
			b.Fatal(err)
		}
		b.StartTimer()
		f0, g0 = r.svc.AcceptPaths()
		if _, err := dana.Sync(ctx); err != nil { // the 20 adds
			b.Fatal(err)
		}
		f1, g1 = r.svc.AcceptPaths()
		sends += f1 + g1 - f0 - g0
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
	b.ReportMetric(float64(sends)/float64(b.N), "sends/op")
}
