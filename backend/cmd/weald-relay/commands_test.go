package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelpListsRealCommands (issue 15: relay help with real subcommands):
// `help` lists the commands and the serving flags, `help provision` its
// flags, `completion bash` prints a script; each exits 0.
func TestHelpListsRealCommands(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"help"}, []string{"provision", "version", "completion", "-listen", "-db", "-public-host", "WEALD_RELAY_DB"}},
		{[]string{"--help"}, []string{"provision", "token", "version", "completion", "-listen", "-provisioning"}},
		{[]string{"-h"}, []string{"provision", "token", "-listen"}},
		{[]string{"help", "token", "create"}, []string{"-uses", "-expires", "-relay", "Exit status"}},
		{[]string{"help", "provision"}, []string{"-workspace", "-genesis", "-db", "Exit status"}},
		{[]string{"provision", "-h"}, []string{"-workspace", "-genesis"}},
		{[]string{"completion", "bash"}, []string{"__start_weald-relay"}},
	} {
		var out bytes.Buffer
		if code := run(context.Background(), c.args, envOf(nil), &out, &out); code != 0 {
			t.Fatalf("%q: exit %d: %s", c.args, code, out.String())
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%q does not mention %q:\n%s", c.args, w, out.String())
			}
		}
	}
	var out bytes.Buffer
	if code := run(context.Background(), []string{"no-such-command"}, envOf(nil), &out, &out); code != 2 {
		t.Errorf("an unknown command exits %d, want 2: %s", code, out.String())
	}
}

// TestManPages: the hidden `weald-relay man DIR` (make package) writes a
// page per command, the serving flags listed in weald-relay(1).
func TestManPages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out bytes.Buffer
	if code := run(context.Background(), []string{"man", dir}, envOf(nil), &out, &out); code != 0 {
		t.Fatalf("man: exit %d: %s", code, out.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "weald-relay.1"))
	if err != nil || !bytes.Contains(b, []byte(`\fB-listen\fP \fIstring\fP`)) || !bytes.Contains(b, []byte("WEALD_RELAY_PROVISIONING")) {
		t.Fatalf("weald-relay.1: %v\n%s", err, b)
	}
	for _, p := range []string{"weald-relay-provision.1", "weald-relay-token-create.1"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	out.Reset()
	run(context.Background(), []string{"help"}, envOf(nil), &out, &out)
	if strings.Contains(out.String(), "man ") {
		t.Errorf("help lists the hidden man command:\n%s", out.String())
	}
}
