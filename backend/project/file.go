// Package project reads, writes, binds and watches the `.weald` file of a
// project folder (spec/channels.md "Default channels": binding the local
// project to the workspace creates no groups; it writes the `workspace` field
// into `.weald` and flips the transport; design/gaps.md "Onboarding and
// projects").
//
// A `.weald` file is a JSON object. The fields Weald knows are typed in
// [File]; every other field is kept as it was, so rewriting the file never
// loses what another tool or a person put there.
package project

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"weald/backend/errcode"
)

// FileName is the name of the project file in a project folder.
const FileName = ".weald"

// MaxFileSize bounds what is read from a `.weald` file.
const MaxFileSize = 64 << 10

// Transport says where a project's workspace traffic goes.
type Transport string

const (
	// TransportLocal: the project is not bound; its state stays on this machine.
	TransportLocal Transport = "local"
	// TransportRelay: the project is bound to a workspace on a relay.
	TransportRelay Transport = "relay"
)

// File is the parsed content of a `.weald` file.
type File struct {
	Version   int       // format version, 1
	Name      string    // the project's display name
	Transport Transport // local or relay
	Workspace string    // workspace id (64 hex digits) once bound, else ""
	Relay     string    // relay URL once bound, else ""

	extra map[string]json.RawMessage // unknown fields, kept verbatim
}

// Error is a problem with a `.weald` file: a stable code and one sentence.
type Error struct {
	Code errcode.Code
	Path string
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s: %s", e.Code, e.Path, e.Msg) }

// ErrorCode returns the code (errcode.Of).
func (e *Error) ErrorCode() errcode.Code { return e.Code }

// Codes of [Error].
const (
	CodeInvalid        errcode.Code = "project/invalid"
	CodeTooLarge       errcode.Code = "project/too_large"
	CodeBoundElsewhere errcode.Code = "project/bound_elsewhere"
	CodeNotFound       errcode.Code = "project/not_found"
)

// Parse decodes a `.weald` file. path is only used in errors.
func Parse(path string, b []byte) (*File, error) {
	if len(b) > MaxFileSize {
		return nil, &Error{CodeTooLarge, path, fmt.Sprintf("the file is %d bytes, more than the %d a .weald file may have.", len(b), MaxFileSize)}
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return nil, &Error{CodeInvalid, path, "the file is not a JSON object; fix or delete it."}
	}
	if dec.More() {
		return nil, &Error{CodeInvalid, path, "the file has content after its JSON object."}
	}
	f := &File{Version: 1, Transport: TransportLocal, extra: map[string]json.RawMessage{}}
	for k, v := range raw {
		f.extra[k] = v
	}
	field := func(name string, into any) error {
		v, ok := raw[name]
		if !ok {
			return nil
		}
		delete(f.extra, name)
		if err := json.Unmarshal(v, into); err != nil {
			return &Error{CodeInvalid, path, fmt.Sprintf("the field %q has the wrong type.", name)}
		}
		return nil
	}
	var transport string
	for _, e := range []error{
		field("version", &f.Version), field("name", &f.Name), field("transport", &transport),
		field("workspace", &f.Workspace), field("relay", &f.Relay),
	} {
		if e != nil {
			return nil, e
		}
	}
	if transport != "" {
		f.Transport = Transport(transport)
	}
	if err := f.validate(path); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *File) validate(path string) error {
	if f.Version != 1 {
		return &Error{CodeInvalid, path, fmt.Sprintf("version %d is not one this Weald reads (it reads version 1).", f.Version)}
	}
	switch f.Transport {
	case TransportLocal:
	case TransportRelay:
		if f.Workspace == "" || f.Relay == "" {
			return &Error{CodeInvalid, path, `transport "relay" needs both a workspace and a relay.`}
		}
	default:
		return &Error{CodeInvalid, path, fmt.Sprintf(`transport %q is neither "local" nor "relay".`, f.Transport)}
	}
	if f.Workspace != "" {
		if b, err := hex.DecodeString(f.Workspace); err != nil || len(b) != 32 {
			return &Error{CodeInvalid, path, "the workspace field is not a workspace id (64 hexadecimal digits)."}
		}
	}
	if f.Relay != "" && !strings.HasPrefix(f.Relay, "ws://") && !strings.HasPrefix(f.Relay, "wss://") {
		return &Error{CodeInvalid, path, "the relay field is not a ws:// or wss:// address."}
	}
	return nil
}

// Encode encodes f with the known fields first and unknown fields kept.
func (f *File) Encode() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("{\n")
	put := func(k string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if buf.Len() > 2 {
			buf.WriteString(",\n")
		}
		kb, _ := json.Marshal(k)
		buf.WriteString("  ")
		buf.Write(kb)
		buf.WriteString(": ")
		buf.Write(b)
		return nil
	}
	put("version", f.Version)
	if f.Name != "" {
		put("name", f.Name)
	}
	put("transport", f.Transport)
	if f.Workspace != "" {
		put("workspace", f.Workspace)
	}
	if f.Relay != "" {
		put("relay", f.Relay)
	}
	keys := make([]string, 0, len(f.extra))
	for k := range f.extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var compact bytes.Buffer
		if err := json.Compact(&compact, f.extra[k]); err != nil {
			return nil, err
		}
		put(k, json.RawMessage(compact.Bytes()))
	}
	buf.WriteString("\n}\n")
	return buf.Bytes(), nil
}

// Read reads folder/.weald. A missing file is an *Error with CodeNotFound.
func Read(folder string) (*File, error) {
	path := filepath.Join(folder, FileName)
	fh, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &Error{CodeNotFound, path, "there is no .weald file in this folder."}
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b := make([]byte, MaxFileSize+1)
	n, err := readFull(fh, b)
	if err != nil {
		return nil, err
	}
	return Parse(path, b[:n])
}

// Write replaces folder/.weald atomically (a temporary file renamed over it).
func Write(folder string, f *File) error {
	path := filepath.Join(folder, FileName)
	if err := f.validate(path); err != nil {
		return err
	}
	b, err := f.Encode()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(folder, ".weald.tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Bind binds the project in folder to a workspace on a relay: it writes the
// workspace and relay fields and flips the transport to relay. A folder
// without a `.weald` file gets one. Binding a project that is already bound to
// another workspace is refused (CodeBoundElsewhere); binding it again to the
// same one is a no-op. Bind creates no groups.
func Bind(folder, workspaceID, relayURL string) (*File, error) {
	f, err := Read(folder)
	var pe *Error
	switch {
	case errors.As(err, &pe) && pe.Code == CodeNotFound:
		f = &File{Version: 1, Name: filepath.Base(folder), Transport: TransportLocal, extra: map[string]json.RawMessage{}}
	case err != nil:
		return nil, err
	}
	if f.Workspace != "" && !strings.EqualFold(f.Workspace, workspaceID) {
		return nil, &Error{CodeBoundElsewhere, filepath.Join(folder, FileName),
			"this project is bound to another workspace; unbind it first or join that workspace."}
	}
	next := *f
	next.Workspace = strings.ToLower(workspaceID)
	next.Relay = relayURL
	next.Transport = TransportRelay
	if err := Write(folder, &next); err != nil {
		return nil, err
	}
	return &next, nil
}
