package engine

import (
	"fmt"
	"os"
	"runtime/pprof"
	"testing"
	"time"

	"weald/backend/lifecycle"
	"weald/backend/roster"
)

// BenchmarkRemovePerson measures a removal from operation start to receipt
// (issue 12 goal: under 5 s for a user with 3 devices and 2 agents in 512
// groups): sam's three devices are in WEALD_BENCH_GROUPS explicit channels
// (default 64; the workspace's own three groups come on top), each with
// dana and sam's devices; two agents sam approved are in #general and the
// first eight channels. Run with -benchtime=1x: each iteration builds its
// workspace. WEALD_BENCH_CPUPROFILE=FILE writes a CPU profile of the
// removal alone (the relay in this process included).
func BenchmarkRemovePerson(b *testing.B) {
	n := benchGroups(64)
	for it := 0; it < b.N; it++ {
		b.StopTimer()
		r, ctx, dana, sam := benchWorkspace(b, byte(210+it))
		sam2 := secondDevice(b, r, dana, sam, byte(230+it))
		sam3 := secondDevice(b, r, dana, sam, byte(240+it))
		for _, e := range []*Engine{sam, sam2, sam3} {
			if _, err := e.Sync(ctx); err != nil {
				b.Fatal(err)
			}
		}
		setup := time.Now()
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("chan-%03d", i)
			if _, err := dana.CreateChannel(ctx, name, roster.AdmissionExplicit); err != nil {
				b.Fatal(err)
			}
			res, err := dana.AddPeople(ctx, name, []string{sam.meta.User.hex()})
			if err != nil || len(res.Added) != 3 {
				b.Fatalf("add to %s: %+v %v", name, res, err)
			}
		}
		if _, err := sam.Sync(ctx); err != nil { // the welcomes
			b.Fatal(err)
		}
		scope := []string{"general"}
		for i := 0; i < n && i < 8; i++ {
			scope = append(scope, fmt.Sprintf("chan-%03d", i))
		}
		for a := 0; a < 2; a++ {
			bot, req, err := CreateAgent(ctx, r.options(b, fmt.Sprintf("bot-%d-%d", it, a), byte(200+2*it+a)), r.URL, dana.WorkspaceID(), "bot", scope, time.Hour)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := sam.ApproveAgent(ctx, req); err != nil {
				b.Fatal(err)
			}
			for _, e := range []*Engine{dana, bot, sam} { // access set, key packages, the adds
				if _, err := e.Sync(ctx); err != nil {
					b.Fatal(err)
				}
			}
			bot.Close()
		}
		if _, err := dana.Sync(ctx); err != nil {
			b.Fatal(err)
		}
		b.Logf("setup of %d channels: %s", n, time.Since(setup).Round(time.Millisecond))
		if f := os.Getenv("WEALD_BENCH_CPUPROFILE"); f != "" {
			out, err := os.Create(f)
			if err != nil {
				b.Fatal(err)
			}
			if err := pprof.StartCPUProfile(out); err != nil {
				b.Fatal(err)
			}
			defer out.Close()
		}
		b.StartTimer()
		start := time.Now()
		last := start
		dana.opts.OnEvent = func(ev Event) {
			if ev.Kind == EventProgress && ev.Done == ev.Total {
				b.Logf("%s done at %s (+%s)", ev.Task, time.Since(start).Round(time.Millisecond), time.Since(last).Round(time.Millisecond))
				last = time.Now()
			}
		}
		op, err := dana.Remove(ctx, sam.meta.User.hex(), RemoveOptions{})
		took := time.Since(start)
		b.StopTimer()
		pprof.StopCPUProfile()
		if err != nil || op.State != lifecycle.StateDone {
			b.Fatalf("remove: %v", err)
		}
		rotated := len(op.Receipt.Groups)
		if rotated < n || op.Receipt.DevicesRevoked != 3 || op.Receipt.AgentsRevoked != 2 {
			b.Fatalf("receipt: %d groups rotated, %d devices, %d agents", rotated, op.Receipt.DevicesRevoked, op.Receipt.AgentsRevoked)
		}
		b.ReportMetric(float64(rotated), "groups_rotated")
		b.ReportMetric(took.Seconds(), "s/removal")
		b.StartTimer()
	}
}
