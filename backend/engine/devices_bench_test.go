package engine

import (
	"fmt"
	"testing"
	"time"

	"weald/backend/roster"
)

// BenchmarkRevokeDeviceFiftyGroups measures revoking one device present
// in 50 groups (issue 12 goal: under 1 s): sam's second device is in 50
// explicit channels (and whichever of the workspace's groups it joined);
// dana, an admin, revokes it: the roster revoke, a Remove commit in each
// group, the access set. Run with
// -benchtime=1x: each iteration builds its workspace.
func BenchmarkRevokeDeviceFiftyGroups(b *testing.B) {
	for it := 0; it < b.N; it++ {
		b.StopTimer()
		r, ctx, dana, sam := benchWorkspace(b, byte(100+it))
		sam2 := secondDevice(b, r, dana, sam, byte(120+it))
		for _, e := range []*Engine{sam, sam2} {
			if _, err := e.Sync(ctx); err != nil {
				b.Fatal(err)
			}
		}
		for i := 0; i < 50; i++ {
			name := fmt.Sprintf("chan-%02d", i)
			if _, err := dana.CreateChannel(ctx, name, roster.AdmissionExplicit); err != nil {
				b.Fatal(err)
			}
			if res, err := dana.AddPeople(ctx, name, []string{sam.meta.User.hex()}); err != nil || len(res.Added) != 2 {
				b.Fatalf("add to %s: %+v %v", name, res, err)
			}
		}
		b.StartTimer()
		start := time.Now()
		res, err := dana.RevokeDevice(ctx, hexID(sam2.devID).hex())
		took := time.Since(start)
		b.StopTimer()
		if err != nil || len(res.Groups) < 50 {
			b.Fatalf("revoke: %d groups rotated, %v", len(res.Groups), err)
		}
		b.ReportMetric(float64(len(res.Groups)), "groups_rotated")
		b.ReportMetric(took.Seconds(), "s/revoke")
		b.StartTimer()
	}
}
