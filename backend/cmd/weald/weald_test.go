package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

var relayBin string

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"weald": main,
	})
}

// buildRelay builds the real weald-relay once per test binary.
func buildRelay(t *testing.T) string {
	if relayBin != "" {
		return relayBin
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "weald-relay")
	cmd := exec.Command("go", "build", "-o", bin, "weald/backend/cmd/weald-relay")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build weald-relay: %v\n%s", err, out)
	}
	relayBin = bin
	return bin
}

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func TestScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the scripts build and run the real relay (make test runs them)")
	}
	bin := buildRelay(t)
	testscript.Run(t, testscript.Params{
		Dir: "testdata",
		Setup: func(env *testscript.Env) error {
			addr := freePort(t)
			env.Setenv("RELAYADDR", addr)
			env.Setenv("RELAY", "ws://"+addr+"/v1/ws")
			// The CLI runs as its own binary here: never a developer's
			// keyring (store.md "Encryption at rest").
			env.Setenv("WEALD_KEYRING", "file")
			env.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+env.Getenv("PATH"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// waitrelay: poll the relay's /healthz until it answers (10 s).
			"waitrelay": func(ts *testscript.TestScript, neg bool, args []string) {
				url := "http://" + ts.Getenv("RELAYADDR") + "/healthz"
				for i := 0; i < 200; i++ {
					if r, err := http.Get(url); err == nil {
						r.Body.Close()
						if r.StatusCode == 200 {
							return
						}
					}
					time.Sleep(50 * time.Millisecond)
				}
				ts.Fatalf("relay did not come up at %s", url)
			},
			// jsonenv VAR FIELD: set VAR to a top-level string field of
			// the last command's JSON stdout.
			"jsonenv": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: jsonenv VAR FIELD")
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &m); err != nil {
					ts.Fatalf("stdout is not JSON: %v", err)
				}
				v, ok := m[args[1]].(string)
				if !ok {
					ts.Fatalf("no string field %q in stdout", args[1])
				}
				ts.Setenv(args[0], v)
			},
			// stdoutenv VAR: set VAR to the last command's stdout, trimmed.
			"stdoutenv": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: stdoutenv VAR")
				}
				ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile("stdout")))
			},
			// jsonlen FIELD N: the last command's JSON stdout has an array
			// field with N items.
			"jsonlen": func(ts *testscript.TestScript, neg bool, args []string) {
				var m map[string]any
				if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &m); err != nil {
					ts.Fatalf("stdout is not JSON: %v", err)
				}
				a, _ := m[args[0]].([]any)
				if got := fmt.Sprint(len(a)); got != args[1] {
					ts.Fatalf("%s has %s items, want %s", args[0], got, args[1])
				}
			},
			// stop: send SIGTERM-like kill to background commands is done by
			// testscript at the end; nothing else needed.
			"sleep": func(ts *testscript.TestScript, neg bool, args []string) {
				d, err := time.ParseDuration(strings.Join(args, ""))
				if err != nil {
					ts.Fatalf("sleep: %v", err)
				}
				time.Sleep(d)
			},
		},
	})
}
