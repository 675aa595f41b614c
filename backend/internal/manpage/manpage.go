// Package manpage writes the manual pages of a cobra command tree with
// cobra's own generator (github.com/spf13/cobra/doc): one page in section 1
// per command, named by its path with dashes (weald.1,
// weald-workspace-create.1, ...), as the .deb installs them (issue 15,
// docs/packaging.md).
package manpage

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// Write writes the pages of root and every command under it into dir.
// source names the software and its version (the page footer); the date is
// SOURCE_DATE_EPOCH's when set, so that a build is reproducible. Commands
// that parse their own flags (DisableFlagParsing, with the standard
// library's flag text in Long) get that text as a flag list.
func Write(root *cobra.Command, dir, source string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("manpage: %w", err)
	}
	root.DisableAutoGenTag = true
	walk(root, func(c *cobra.Command) {
		if c.DisableFlagParsing {
			c.Long = GoFlags(c.Long)
		}
	})
	return doc.GenManTreeFromOpts(root, doc.GenManTreeOptions{
		Path:             dir,
		CommandSeparator: "-",
		Header:           &doc.GenManHeader{Section: "1", Source: source, Manual: "Weald Manual"},
	})
}

func walk(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, s := range c.Commands() {
		walk(s, f)
	}
}

var (
	flagLine  = regexp.MustCompile(`^  (-[A-Za-z0-9][A-Za-z0-9-]*)(?: (\S+))?$`)
	usageLine = regexp.MustCompile(`^    \t(.*)$`)
	mdSpecial = strings.NewReplacer(`\`, `\\`, `*`, `\*`, `_`, `\_`, "`", "\\`", `<`, `\<`, `>`, `\>`, `[`, `\[`, `]`, `\]`)
)

// GoFlags rewrites the flag list that the standard library's flag package
// prints (PrintDefaults: "  -name type" then "    \tusage" lines) as the
// Markdown cobra's generator uses for flags; other text is kept.
func GoFlags(text string) string {
	var b strings.Builder
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		m := flagLine.FindStringSubmatch(lines[i])
		if m == nil {
			b.WriteString(lines[i])
			b.WriteByte('\n')
			continue
		}
		b.WriteString("\n**" + mdSpecial.Replace(m[1]) + "**")
		if m[2] != "" {
			b.WriteString(" *" + mdSpecial.Replace(m[2]) + "*")
		}
		var usage []string
		for i+1 < len(lines) {
			u := usageLine.FindStringSubmatch(lines[i+1])
			if u == nil {
				break
			}
			usage = append(usage, mdSpecial.Replace(u[1]))
			i++
		}
		b.WriteString("\n\t" + strings.Join(usage, " ") + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
