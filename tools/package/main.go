// Command package builds Weald's Debian packages with nfpm, used as a
// library (issue 15, "make package"). It reads an nfpm configuration
// (build/linux/weald.nfpm.yaml, build/linux/relay/weald-relay.nfpm.yaml)
// with ${VERSION} and ${ARCH} filled in, and writes one .deb:
//
//	go run ./tools/package -config FILE -version "$(git describe)" -arch amd64 -out DIR
//
// It is its own module so that nfpm's dependencies stay out of the app's
// go.mod. Paths in the configuration are relative to the working directory
// (the repository root when make runs it).
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb" // registers the deb packager
	"github.com/goreleaser/nfpm/v2/files"
)

func main() {
	config := flag.String("config", "", "nfpm configuration file")
	version := flag.String("version", "", "version as git describe prints it (v1.2.3, v1.2.3-4-gabcdef, -dirty)")
	arch := flag.String("arch", "amd64", "Debian architecture")
	out := flag.String("out", "build/bin", "directory for the .deb")
	flag.Parse()
	if *config == "" || *version == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: package -config FILE -version VERSION [-arch ARCH] [-out DIR]")
		os.Exit(2)
	}
	path, err := build(*config, debVersion(*version), *arch, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "package:", err)
		os.Exit(1)
	}
	fmt.Println(path)
}

var describe = regexp.MustCompile(`^v?([0-9][0-9A-Za-z.]*)(?:-([0-9]+)-g([0-9a-f]+))?(-dirty)?$`)

// debVersion turns git describe's output into a Debian version that sorts
// the same way: v1.2.3 → 1.2.3, v1.2.3-4-gabc → 1.2.3+git4.gabc, and a
// dirty tree adds .dirty.
func debVersion(v string) string {
	m := describe.FindStringSubmatch(strings.TrimSpace(v))
	if m == nil {
		return "0.0.0+unknown"
	}
	s := m[1]
	if m[2] != "" {
		s += "+git" + m[2] + ".g" + m[3]
	}
	if m[4] != "" {
		if m[2] == "" {
			s += "+dirty"
		} else {
			s += ".dirty"
		}
	}
	return s
}

func build(config, version, arch, outDir string) (string, error) {
	env := map[string]string{"VERSION": version, "ARCH": arch}
	cfg, err := nfpm.ParseFileWithEnvMapping(config, func(k string) string { return env[k] })
	if err != nil {
		return "", err
	}
	info, err := cfg.Get("deb")
	if err != nil {
		return "", err
	}
	// A native package's changelog (Debian policy 12.7): one entry for
	// this build, written next to the .deb and packaged.
	cl := filepath.Join(outDir, info.Name+".changelog.gz")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(cl, changelog(info.Name, version, info.Maintainer, time.Now()), 0o644); err != nil {
		return "", err
	}
	info.Contents = append(info.Contents, &files.Content{Source: cl, Destination: "/usr/share/doc/" + info.Name + "/changelog.gz",
		FileInfo: &files.ContentFileInfo{Mode: 0o644}})
	info = nfpm.WithDefaults(info)
	if err := nfpm.Validate(info); err != nil {
		return "", err
	}
	pkgr, err := nfpm.Get("deb")
	if err != nil {
		return "", err
	}
	path := filepath.Join(outDir, pkgr.ConventionalFileName(info))
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := pkgr.Package(info, f); err != nil {
		f.Close()
		os.Remove(path)
		return "", err
	}
	return path, f.Close()
}

// changelog is a one-entry Debian changelog, gzipped without a name or time
// in the gzip header.
func changelog(name, version, maintainer string, now time.Time) []byte {
	text := fmt.Sprintf("%s (%s) unstable; urgency=medium\n\n  * Built with make package (see the project's git history).\n\n -- %s  %s\n",
		name, version, maintainer, now.UTC().Format("Mon, 02 Jan 2006 15:04:05 -0700"))
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write([]byte(text))
	zw.Close()
	return b.Bytes()
}
