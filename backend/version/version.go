// Package version says which build of Weald is running: the version and
// commit that `make` stamps into every binary with -ldflags (issue 15,
// "version stamping"), or what the Go toolchain recorded when it was built
// without them (go build, go run, go test).
package version

import (
	"runtime/debug"
	"strings"
)

// Set by the Makefile:
//
//	-ldflags "-X weald/backend/version.version=$(git describe) -X weald/backend/version.commit=$(git rev-parse HEAD)"
var (
	version string
	commit  string
)

// Info is one build's identity.
type Info struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
}

// Get returns the stamped version and commit, falling back to the build
// information the Go toolchain embeds: the module version ("(devel)" for a
// build from a work tree becomes "dev") and vcs.revision, marked "-dirty"
// when the tree had changes. Unknown parts read "unknown".
func Get() Info {
	return resolve(version, commit, debug.ReadBuildInfo)
}

func resolve(v, c string, read func() (*debug.BuildInfo, bool)) Info {
	if v == "" || c == "" {
		if bi, ok := read(); ok {
			if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
				v = bi.Main.Version
			}
			if c == "" {
				c = fromSettings(bi.Settings)
			}
		}
	}
	if v == "" {
		v = "dev"
	}
	if c == "" {
		c = "unknown"
	}
	return Info{Version: v, Commit: c}
}

func fromSettings(s []debug.BuildSetting) string {
	var rev string
	dirty := false
	for _, kv := range s {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.modified":
			dirty = kv.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}

// Short is the commit cut to 12 characters (and its -dirty mark kept).
func (i Info) Short() string {
	c, dirty := strings.CutSuffix(i.Commit, "-dirty")
	if len(c) > 12 {
		c = c[:12]
	}
	if dirty {
		c += "-dirty"
	}
	return c
}

// String is the line every binary's --version prints after its name:
// "v0.1.0-12-gabc123 (commit abc123def456)".
func (i Info) String() string {
	return i.Version + " (commit " + i.Short() + ")"
}
