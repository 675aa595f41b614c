package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestHelpListsRealCommands (issue 15: relay help with real subcommands):
// `help` lists the commands and the serving flags, `help provision` its
// flags, `completion bash` prints a script; each exits 0.
func TestHelpListsRealCommands(t *testing.T) {
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
