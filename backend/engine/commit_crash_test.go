package engine

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"weald/backend/identity"
	"weald/backend/roster"
)

// A crash at each point inside a commit (persisted and not sent; sent and
// not merged; merged and its Welcome not sent) does not fork the group: the
// committer, restarted on the same store, takes the commit the relay
// accepted (or, never sent, makes it again), and every member ends in one
// epoch reading the others (docs/protocol/lifecycle.md "A crash inside a
// commit").
func TestCrashInsideCommitConverges(t *testing.T) {
	t.Parallel()
	for i, point := range []string{"commit/staged", "commit/sent", "commit/merged"} {
		t.Run(strings.ReplaceAll(point, "/", "_"), func(t *testing.T) {
			r := startRelay(t)
			ctx := testCtx(t)
			seed := byte(40 + 4*i)
			crash := errors.New("simulated crash")
			armed := false
			opts := r.options(t, "creator", seed)
			opts.Crash = func(s string) error {
				if armed && s == point {
					armed = false
					return crash
				}
				return nil
			}
			dana, err := CreateWorkspace(ctx, opts, "Acme", r.URL)
			if err != nil {
				t.Fatal(err)
			}
			sam := joinWith(t, r, invite(t, dana), "sam", seed+1)
			lee := joinWith(t, r, invite(t, dana), "lee", seed+2)
			mustSync(t, dana, sam, lee)
			if _, err := dana.CreateChannel(ctx, "secret", roster.AdmissionExplicit); err != nil {
				t.Fatal(err)
			}
			if _, err := dana.AddPeople(ctx, "secret", []string{sam.meta.User.hex()}); err != nil {
				t.Fatal(err)
			}
			mustSync(t, sam)
			armed = true
			if _, err := dana.AddPeople(ctx, "secret", []string{lee.meta.User.hex()}); !errors.Is(err, crash) {
				t.Fatalf("the add did not stop at %s: %v", point, err)
			}
			dana.Close()
			opts.Crash = nil
			if dana, err = Open(ctx, opts); err != nil {
				t.Fatal(err)
			}
			defer dana.Close()
			mustSync(t, dana, sam, lee)
			if point == "commit/staged" {
				// Never sent: nothing happened; the admin adds lee again.
				if _, err := dana.AddPeople(ctx, "secret", []string{lee.meta.User.hex()}); err != nil {
					t.Fatal(err)
				}
			}
			mustSync(t, lee, sam, dana)
			id := identity.GroupID(mustHex(t, chanID(t, dana, "secret")))
			if d, s, l := epochs(dana)[id], epochs(sam)[id], epochs(lee)[id]; d != s || s != l || d == 0 {
				t.Fatalf("epochs of #secret: dana %d, sam %d, lee %d", d, s, l)
			}
			all := []*Engine{dana, sam, lee}
			for j, from := range all {
				text := fmt.Sprintf("from %d after the crash at %s", j, point)
				if _, err := from.Send(ctx, "secret", text); err != nil {
					t.Fatalf("%d sends: %v", j, err)
				}
				for _, to := range all {
					if to != from {
						readsLast(t, to, "secret", text)
					}
				}
			}
		})
	}
}
