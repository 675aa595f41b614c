package manpage

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// A tree of two levels gets one page per available command, named with
// dashes; a command that parses its own flags gets its flag text as a
// list; hidden commands get none; the date is SOURCE_DATE_EPOCH's.
func TestWrite(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000") // Nov 2023
	root := &cobra.Command{Use: "tool", Short: "A tool"}
	root.PersistentFlags().Bool("json", false, "print JSON")
	grp := &cobra.Command{Use: "ws", Short: "Workspaces"}
	grp.AddCommand(&cobra.Command{Use: "remove ID", Short: "Remove one", Run: func(*cobra.Command, []string) {}})
	serve := &cobra.Command{Use: "serve", Short: "Serve", DisableFlagParsing: true, Run: func(*cobra.Command, []string) {},
		Long: "Serves.\n\nFlags:\n  -listen string\n    \taddress to listen on (env X_LISTEN; default <dir>/a_b)\n  -rate float\n    \trequests per second (default 200)\n"}
	root.AddCommand(grp, serve, &cobra.Command{Use: "man DIR", Hidden: true, Run: func(*cobra.Command, []string) {}})

	dir := t.TempDir()
	if err := Write(root, dir, "Tool 1.2"); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	want := []string{"tool-serve.1", "tool-ws-remove.1", "tool-ws.1", "tool.1"}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Fatalf("pages %q, want %q among them", got, w)
		}
	}
	if slices.Contains(got, "tool-man.1") {
		t.Fatalf("a hidden command got a page: %q", got)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "tool-serve.1"))
	page := string(b)
	for _, w := range []string{`.TH "TOOL-SERVE" "1" "Nov 2023" "Tool 1.2" "Weald Manual"`, `\fB-listen\fP \fIstring\fP`,
		"address to listen on (env X_LISTEN; default <dir>/a_b)", `\fB-rate\fP \fIfloat\fP`, "tool(1)"} {
		if !strings.Contains(page, w) {
			t.Errorf("tool-serve.1 lacks %q:\n%s", w, page)
		}
	}
	b, _ = os.ReadFile(filepath.Join(dir, "tool-ws-remove.1"))
	if !strings.Contains(string(b), "--json") {
		t.Errorf("the inherited flag is missing:\n%s", b)
	}
}

func TestGoFlagsKeepsOtherText(t *testing.T) {
	in := "Some prose -- with a dash.\n  not a flag line\n"
	if got := GoFlags(in); got != strings.TrimRight(in, "\n") {
		t.Fatalf("GoFlags changed prose: %q", got)
	}
}
