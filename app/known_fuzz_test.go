package app

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzKnownFolders: any projects.json is either loaded as a list of clean,
// distinct absolute paths or refused with projects/unreadable; never a panic.
func FuzzKnownFolders(f *testing.F) {
	f.Add([]byte(`{"version":1,"folders":["/a","/b"]}`))
	f.Add([]byte(`{"version":1,"folders":["/a","/a"]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "projects.json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
		k, err := loadKnownFolders(dir)
		if err != nil {
			if err.Code != "projects/unreadable" || k != nil {
				t.Fatalf("refusal %+v with %+v", err, k)
			}
			return
		}
		seen := map[string]bool{}
		for _, d := range k.Folders {
			if !filepath.IsAbs(d) || filepath.Clean(d) != d || seen[d] {
				t.Fatalf("accepted %q", d)
			}
			seen[d] = true
		}
	})
}
