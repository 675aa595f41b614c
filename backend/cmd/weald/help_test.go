package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelpVersionCompletionUsage: the command library's help, version and
// completion, and usage errors keeping exit code 2 and their sentences.
func TestHelpVersionCompletionUsage(t *testing.T) {
	home := t.TempDir()
	cases := []struct {
		args   []string
		exit   int
		stdout string // a substring of stdout
		stderr string // a substring of stderr
	}{
		{[]string{"help"}, exitOK, "workspace   Create, list and remove workspaces", ""},
		{[]string{"--help"}, exitOK, "Exit codes: 0 done", ""},
		{[]string{"help", "channel", "add"}, exitOK, "weald channel add CHANNEL USER...", ""},
		{[]string{"invite", "create", "--help"}, exitOK, "--scope stringArray", ""},
		{[]string{"--version"}, exitOK, "weald dev (commit ", ""},
		{[]string{"completion", "bash"}, exitOK, "__start_weald", ""},
		{[]string{"completion", "zsh"}, exitOK, "#compdef weald", ""},
		{[]string{"__complete", "wor"}, exitOK, "workspace", ""},
		{nil, exitUsage, "", "missing command; run weald help"},
		{[]string{"frobnicate"}, exitUsage, "", `unknown command "frobnicate"`},
		{[]string{"workspace"}, exitUsage, "", "workspace create NAME --relay URL|LINK | workspace list | workspace remove ID --yes"},
		{[]string{"workspace", "create", "Acme"}, exitUsage, "", "workspace create NAME --relay URL"},
		{[]string{"send", "general"}, exitUsage, "", "send CHANNEL TEXT"},
		{[]string{"read", "general", "--limit", "x"}, exitUsage, "", "--limit is a whole number"},
		{[]string{"channels", "--nosuch"}, exitUsage, "", "unknown flag: --nosuch"},
		{[]string{"--json", "send", "general"}, exitUsage, `"code": "internal/error"`, "send CHANNEL TEXT"},
		{[]string{"status"}, exitNotFound, "", "workspace/none"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			args := append([]string{"--home", home}, tc.args...)
			got := run(context.Background(), args, func(string) string { return "" }, &out, &errb)
			if got != tc.exit {
				t.Errorf("exit %d, want %d; stderr %q", got, tc.exit, errb.String())
			}
			if !strings.Contains(out.String(), tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, out.String())
			}
			if !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, errb.String())
			}
		})
	}
}

// TestManPages: the hidden `weald man DIR` (make package) writes a page for
// weald and for each command, and help does not list it.
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--home", t.TempDir(), "man", dir}, func(string) string { return "" }, &out, &errb); code != exitOK {
		t.Fatalf("man: exit %d: %s", code, errb.String())
	}
	for _, p := range []string{"weald.1", "weald-workspace-remove.1", "weald-invite-create.1", "weald-completion-bash.1"} {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil || !bytes.Contains(b, []byte(".SH NAME")) {
			t.Errorf("%s: %v %.80q", p, err, b)
		}
	}
	out.Reset()
	run(context.Background(), []string{"help"}, func(string) string { return "" }, &out, &errb)
	if strings.Contains(out.String(), "man ") {
		t.Errorf("help lists the hidden man command:\n%s", out.String())
	}
}
