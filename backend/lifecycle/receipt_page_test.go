package lifecycle

import (
	"os"
	"strings"
	"testing"
	"time"
)

// The printable page names the operation, the person, each group rotated
// and each principal revoked, and escapes a name written by the person.
func TestExportPageEscapesAndListsEverything(t *testing.T) {
	r := Receipt{Operation: ID{1}, User: ID{2}, Name: `<script>alert(1)</script>`, DevicesRevoked: 2, AccessVersion: 7,
		Groups: []RotatedGroup{{Group: ID{3}, Name: "general", Epoch: 9}}, Revoked: []Principal{{Kind: "device", ID: ID{4}}},
		At: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC), RosterIndex: 12, By: ID{5}}
	p, err := ExportPage(t.TempDir(), r, "Acme & Co")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{r.Operation.Hex(), r.User.Hex(), ID{4}.Hex(), ">general<", "2026-12-02 10:00:00 UTC",
		"Acme &amp; Co", "&lt;script&gt;", "already decrypted"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>") {
		t.Error("the person's name reached the page unescaped")
	}
	if !strings.HasSuffix(p, "removal-"+r.Operation.Hex()+".html") {
		t.Errorf("written to %s", p)
	}
}
