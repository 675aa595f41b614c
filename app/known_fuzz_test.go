package app

import (
	"path/filepath"
	"testing"
)

// FuzzKnownFolders: any projects.json of an earlier version is either
// imported as a list of clean, distinct absolute paths or refused with
// projects/unreadable; never a panic.
func FuzzKnownFolders(f *testing.F) {
	f.Add([]byte(`{"version":1,"folders":["/a","/b"]}`))
	f.Add([]byte(`{"version":1,"folders":["/a","/a"]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, b []byte) {
		folders, err := parseKnownFolders(b, "projects.json")
		if err != nil {
			if err.Code != "projects/unreadable" || folders != nil {
				t.Fatalf("refusal %+v with %+v", err, folders)
			}
			return
		}
		seen := map[string]bool{}
		for _, d := range folders {
			if !filepath.IsAbs(d) || filepath.Clean(d) != d || seen[d] {
				t.Fatalf("accepted %q", d)
			}
			seen[d] = true
		}
	})
}
