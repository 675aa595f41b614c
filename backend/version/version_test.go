package version

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	bi := &debug.BuildInfo{
		Main: debug.Module{Version: "(devel)"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	withBI := func() (*debug.BuildInfo, bool) { return bi, true }
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	cases := []struct {
		name, v, c string
		read       func() (*debug.BuildInfo, bool)
		want       string
	}{
		{"stamped", "v1.2.3", "fedcba9876543210", none, "v1.2.3 (commit fedcba987654)"},
		{"build info", "", "", withBI, "dev (commit 0123456789ab-dirty)"},
		{"version stamped, commit from build info", "v0.1.0", "", withBI, "v0.1.0 (commit 0123456789ab-dirty)"},
		{"nothing", "", "", none, "dev (commit unknown)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := resolve(tc.v, tc.c, tc.read).String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
