package main

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The state directory holds:
//
//	identity         the basic credential's identity, verbatim
//	suite            the cipher suite number (decimal)
//	group            the serialised group state (package mls)
//	keypackages/REF  the private half of each key package not yet used, by ref (hex)
const (
	fileIdentity    = "identity"
	fileSuite       = "suite"
	fileGroup       = "group"
	dirKeyPackages  = "keypackages"
	defaultSuiteNum = 1
)

// readInput returns a file's bytes, decoding them if the file holds hex.
// Raw MLS messages start with the version 0x0001, which is never hex text.
func readInput(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t := strings.TrimSpace(string(b))
	if len(t) > 0 && len(t)%2 == 0 && isHex(t) {
		return hex.DecodeString(t)
	}
	return b, nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// writeFileAtomic replaces path with data through a temporary file and rename.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func readState(dir, name string) ([]byte, bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	return b, err == nil, err
}

func parseSuite(s string) (uint16, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 16)
	if err != nil {
		return 0, usagef("bad cipher suite %q", s)
	}
	return uint16(n), nil
}
