package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestVersionFlag(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"--version", "-version", "version"} {
		var out bytes.Buffer
		if code := run(context.Background(), []string{arg}, envOf(nil), &out, &out); code != 0 {
			t.Fatalf("%s: exit %d: %s", arg, code, out.String())
		}
		if !strings.HasPrefix(out.String(), "weald-relay dev (commit ") {
			t.Errorf("%s printed %q", arg, out.String())
		}
	}
}
