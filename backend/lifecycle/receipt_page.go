package lifecycle

import (
	"bytes"
	"html/template"
	"os"
	"path/filepath"
)

// The printable page of a receipt (spec/lifecycle.md "Removing a person",
// step 6: "Exportable, because this is the artifact an auditor asks for"):
// one self-contained HTML file, no script, no external resource, names
// escaped, laid out for paper.
var receiptPage = template.Must(template.New("receipt").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>Removal receipt {{.Short}}</title>
<style>
body{font:11pt/1.45 system-ui,sans-serif;color:#111;max-width:44em;margin:2em auto;padding:0 1em}
h1{font-size:1.4em;margin:0 0 .2em}p.sub{color:#444;margin:0 0 1.5em}
table{border-collapse:collapse;width:100%;margin:.5em 0 1.5em}th,td{text-align:left;border-bottom:1px solid #ccc;padding:.3em .5em;vertical-align:top}
th{width:13em;font-weight:600}code{font:9pt ui-monospace,monospace;word-break:break-all}
@media print{body{margin:0;max-width:none}}
</style></head><body>
<h1>Removal receipt</h1>
<p class="sub">{{.Workspace}}: {{if .R.Name}}{{.R.Name}}{{else}}a person{{end}} removed {{if .Channel}}from one channel{{else}}from the workspace{{end}}, {{.When}}.</p>
<table>
<tr><th>Operation</th><td><code>{{.R.Operation.Hex}}</code></td></tr>
<tr><th>Person</th><td>{{.R.Name}} <code>{{.R.User.Hex}}</code></td></tr>
{{if .Channel}}<tr><th>Channel</th><td><code>{{.R.Channel.Hex}}</code></td></tr>{{end}}
<tr><th>Time (UTC)</th><td>{{.When}}</td></tr>
<tr><th>Devices revoked</th><td>{{.R.DevicesRevoked}}</td></tr>
<tr><th>Agents revoked</th><td>{{.R.AgentsRevoked}}</td></tr>
{{if .R.AccessVersion}}<tr><th>Access set version</th><td>{{.R.AccessVersion}}</td></tr>{{end}}
<tr><th>Membership log entry</th><td>{{.R.RosterIndex}}</td></tr>
<tr><th>Removed by device</th><td><code>{{.R.By.Hex}}</code></td></tr>
</table>
<h2>Groups rotated ({{len .R.Groups}})</h2>
<table><tr><th>Group</th><th>New epoch</th></tr>
{{range .R.Groups}}<tr><td>{{if .Name}}{{.Name}}{{else}}<code>{{.Group.Hex}}</code>{{end}}</td><td>{{.Epoch}}</td></tr>{{end}}
</table>
<h2>Principals revoked ({{len .R.Revoked}})</h2>
<table><tr><th>Kind</th><th>Id</th></tr>
{{range .R.Revoked}}<tr><td>{{.Kind}}</td><td><code>{{.ID.Hex}}</code></td></tr>{{end}}
</table>
<p>Removal cannot reach what this person already decrypted onto their own devices.</p>
</body></html>
`))

// ExportPage writes r as dir/removal-<operation>.html, a printable page,
// and returns its path; workspace names the workspace in its heading.
func ExportPage(dir string, r Receipt, workspace string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := receiptPage.Execute(&b, struct {
		R         Receipt
		Workspace string
		Short     string
		When      string
		Channel   bool
	}{r, workspace, r.Operation.Hex()[:12], r.At.UTC().Format("2006-01-02 15:04:05 UTC"), !r.Channel.IsZero()}); err != nil {
		return "", err
	}
	p := filepath.Join(dir, "removal-"+r.Operation.Hex()+".html")
	return p, os.WriteFile(p, b.Bytes(), 0o600)
}
