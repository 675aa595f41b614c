package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// call runs one mlspeer invocation in-process.
func call(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	if code != 0 {
		t.Logf("mlspeer %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.String(), code
}

func must(t *testing.T, args ...string) string {
	t.Helper()
	out, code := call(t, args...)
	if code != 0 {
		t.Fatalf("mlspeer %s exited %d", strings.Join(args, " "), code)
	}
	return out
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	st := filepath.Join(dir, "s")
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"info"}, exitUsage},                           // no --state
		{[]string{"--state", st}, exitUsage},                    // no command
		{[]string{"--state", st, "frobnicate"}, exitUsage},      // unknown command
		{[]string{"--state", st, "--bogus", "info"}, exitUsage}, // unknown flag
		{[]string{"--state", st, "info"}, exitUsage},            // no group yet
		{[]string{"--state", st, "create", "g"}, exitUsage},     // no identity yet
		{[]string{"--state", st, "--identity", "a", "--suite", "4", "create", "g"}, exitUnsupported},
		{[]string{"--state", st, "--identity", "a", "--suite", "6", "keypackage", filepath.Join(dir, "kp")}, exitUnsupported},
	} {
		if _, code := call(t, tc.args...); code != tc.want {
			t.Fatalf("%v: exit %d, want %d", tc.args, code, tc.want)
		}
	}
	must(t, "--state", st, "--identity", "a", "create", "g")
	if _, code := call(t, "--state", st, "create", "g"); code != exitUsage {
		t.Fatalf("second create: exit %d", code)
	}
	junk := filepath.Join(dir, "junk")
	os.WriteFile(junk, []byte("00010001ffff"), 0o600) // hex, detected, malformed
	if _, code := call(t, "--state", st, "process", junk); code != exitProtocol {
		t.Fatalf("junk: exit %d", code)
	}
	if _, code := call(t, "--state", st, "remove", "id:nobody", "--commit", filepath.Join(dir, "c")); code != exitProtocol {
		t.Fatalf("remove of an unknown identity: exit %d", code)
	}
}

func TestTwoPeers(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	f := func(n string) string { return filepath.Join(dir, n) }
	must(t, "--state", a, "--identity", "uuid:1@example.test", "create", "grüppe")
	must(t, "--state", b, "--identity", "bob", "--hex", "keypackage", f("kp"))
	if raw, _ := os.ReadFile(f("kp")); !isHex(strings.TrimSpace(string(raw))) {
		t.Fatal("--hex did not write hex")
	}
	must(t, "--state", a, "add", f("kp"), "--welcome", f("w"), "--commit", f("c1"), "--ratchet-tree", f("rt"))
	must(t, "--state", b, "join-welcome", f("w"), "--ratchet-tree", f("rt"))
	var info infoJSON
	if err := json.Unmarshal([]byte(must(t, "--state", b, "info")), &info); err != nil {
		t.Fatal(err)
	}
	if info.Epoch != 1 || info.OwnLeaf != 1 || info.GroupID != hex.EncodeToString([]byte("grüppe")) ||
		len(info.Members) != 2 || info.Members[0].Identity != "uuid:1@example.test" {
		t.Fatalf("info: %+v", info)
	}
	must(t, "--state", a, "send", "hi", f("m"))
	var line processedJSON
	if err := json.Unmarshal([]byte(must(t, "--state", b, "process", f("m"))), &line); err != nil {
		t.Fatal(err)
	}
	if line.Type != "application" || line.Text == nil || *line.Text != "hi" {
		t.Fatalf("process: %+v", line)
	}
	must(t, "--state", b, "--private-handshake", "update", "--commit", f("c2"))
	must(t, "--state", a, "process", f("c2"))
	for _, args := range [][]string{{"epoch-authenticator"}, {"export", "l", "", "16"}, {"export", "l", "0102", "40"}} {
		x := must(t, append([]string{"--state", a}, args...)...)
		y := must(t, append([]string{"--state", b}, args...)...)
		if x != y || len(strings.TrimSpace(x)) == 0 {
			t.Fatalf("%v: %q vs %q", args, x, y)
		}
	}
	must(t, "--state", a, "remove", "1", "--commit", f("c3"))
	if err := json.Unmarshal([]byte(must(t, "--state", b, "process", f("c3"))), &line); err != nil {
		t.Fatal(err)
	}
	if line.Active == nil || *line.Active {
		t.Fatalf("bob after removal: %+v", line)
	}
}

// serve answers each line as a process of its own would, in order, and
// stops at a line that is not a JSON array of strings.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	st := filepath.Join(dir, "s")
	lines := [][]string{
		{"--state", st, "info"}, // no group yet: usage
		{"--state", st, "--identity", "a", "create", "g"},
		{"--state", st, "info"},
	}
	// What the first line does in a process of its own (it changes nothing).
	var wantOut, wantErr bytes.Buffer
	wantCode := run(lines[0], &wantOut, &wantErr)
	var in bytes.Buffer
	for _, l := range lines {
		b, _ := json.Marshal(l)
		in.Write(append(b, '\n'))
	}
	var out bytes.Buffer
	if err := serve(&in, &out); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&out)
	for i, l := range lines {
		var got served
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		if i == 0 && (got.Exit != wantCode || got.Stdout != wantOut.String() || got.Stderr != wantErr.String()) {
			t.Fatalf("%v: served %+v, a process exits %d with %q / %q", l, got, wantCode, wantOut.String(), wantErr.String())
		}
		if want := []int{exitUsage, exitOK, exitOK}[i]; got.Exit != want {
			t.Fatalf("%v: exit %d, want %d (%s)", l, got.Exit, want, got.Stderr)
		}
	}
	var info infoJSON
	if err := json.Unmarshal([]byte(must(t, "--state", st, "info")), &info); err != nil || info.Epoch != 0 || len(info.Members) != 1 {
		t.Fatalf("the served create left info %+v (%v)", info, err)
	}
	if err := serve(strings.NewReader("info\n"), io.Discard); err == nil {
		t.Fatal("serve took a line that is not a JSON array")
	}
}
