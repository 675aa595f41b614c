// Package mlstest locates and loads the official RFC 9420 test vectors
// (mlswg/mls-implementations test-vectors/) for the known-answer tests of
// the backend/mls packages.
//
// The vectors live in ../shared/mls-vectors relative to the module root
// (the directory holding go.mod); the environment variable
// WEALD_MLS_VECTORS overrides the folder.
package mlstest

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// EnvVar names the environment variable that overrides the vector folder.
const EnvVar = "WEALD_MLS_VECTORS"

// Dir returns the folder holding the vector files.
func Dir() (string, error) {
	if d := os.Getenv(EnvVar); d != "" {
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(d), "shared", "mls-vectors"), nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("mlstest: no go.mod above %s", wd)
		}
		d = parent
	}
}

// Path returns the full path of the vector file name.
func Path(t testing.TB, name string) string {
	t.Helper()
	d, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(d, name)
}

// Load decodes the JSON vector file name into v, failing the test if the
// file is missing or malformed.
func Load(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(Path(t, name))
	if err != nil {
		t.Fatalf("mlstest: read vectors: %v (set %s to the vector folder)", err, EnvVar)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("mlstest: decode %s: %v", name, err)
	}
}

// SuiteSupported reports whether cipher suite id is one Weald implements
// (1, 2, 3, 5, 7). Cases of other suites (4 and 6: X448/Ed448) count as not
// applicable.
func SuiteSupported(id uint16) bool {
	switch id {
	case 1, 2, 3, 5, 7:
		return true
	}
	return false
}

// HexBytes is a []byte that decodes from a JSON hex string.
type HexBytes []byte

// UnmarshalJSON decodes a hex string ("" gives an empty, non-nil slice).
func (h *HexBytes) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	d, err := hex.DecodeString(s)
	if err != nil {
		return err
	}
	*h = d
	return nil
}

// Counter counts vector cases that ran and that were not applicable, and
// logs both when the test ends.
type Counter struct {
	Ran, NotApplicable int
}

// Report logs the counts: "<file>: N cases ran, M n/a (suites 4/6)".
func (c *Counter) Report(t testing.TB, file string) {
	t.Helper()
	t.Logf("%s: %d cases ran, %d n/a (unsupported suites 4/6)", file, c.Ran, c.NotApplicable)
	if c.Ran == 0 {
		t.Errorf("%s: no case ran", file)
	}
}

// Suite records one case of suite id: it returns true (and counts the case
// as run) if the suite is supported, else counts it as not applicable.
func (c *Counter) Suite(id uint16) bool {
	if SuiteSupported(id) {
		c.Ran++
		return true
	}
	c.NotApplicable++
	return false
}
