// Package mlstest locates and loads the official RFC 9420 test vectors
// (mlswg/mls-implementations test-vectors/) for the known-answer tests of
// the backend/mls packages.
//
// The vectors are kept in the repository, gzipped, in
// backend/mls/testdata/rfc9420 (name.json.gz); the environment variable
// WEALD_MLS_VECTORS names another folder of plain name.json files instead.
package mlstest

import (
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
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
			return filepath.Join(d, "backend", "mls", "testdata", "rfc9420"), nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("mlstest: no go.mod above %s", wd)
		}
		d = parent
	}
}

// Read returns the bytes of the JSON vector file name: name.json.gz in the
// repository's folder, or name as it is in the folder WEALD_MLS_VECTORS names.
func Read(name string) ([]byte, error) {
	d, err := Dir()
	if err != nil {
		return nil, err
	}
	if os.Getenv(EnvVar) != "" {
		return os.ReadFile(filepath.Join(d, name))
	}
	f, err := os.Open(filepath.Join(d, name+".gz"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("mlstest: %s.gz: %w", name, err)
	}
	return io.ReadAll(z)
}

// Load decodes the JSON vector file name into v, failing the test if the
// file is missing or malformed.
func Load(t testing.TB, name string, v any) {
	t.Helper()
	b, err := Read(name)
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

// Case names the subtest of vector case i, so a failure names its case.
func Case(i int) string { return fmt.Sprintf("case_%d", i) }

// SuiteCase names the subtest of vector case i of cipher suite id.
func SuiteCase(i int, id uint16) string { return fmt.Sprintf("case_%d_suite_%d", i, id) }
