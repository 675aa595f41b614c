package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// maxServeLine bounds one request line of serve (arguments only: messages
// travel in files).
const maxServeLine = 1 << 20

// served is serve's answer to one invocation: what the same arguments given
// to a process of their own would have exited with and printed.
type served struct {
	Exit   int    `json:"exit"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

// serve runs invocations read from in, one a line (a JSON array of the
// arguments after the program name), and writes one served object a line to
// out, in order, until in ends. Each invocation loads and saves its state
// directory as a process of its own would: only the start-up is shared, so
// a test can drive a long story through one process (backend/mls/interop).
// A line that is not a JSON array of strings ends serve with an error.
func serve(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxServeLine)
	w := bufio.NewWriter(out)
	for sc.Scan() {
		var argv []string
		if err := json.Unmarshal(sc.Bytes(), &argv); err != nil {
			return fmt.Errorf("request line is not a JSON array of strings: %w", err)
		}
		var stdout, stderr bytes.Buffer
		code := run(argv, &stdout, &stderr)
		b, err := json.Marshal(served{Exit: code, Stdout: stdout.String(), Stderr: stderr.String()})
		if err != nil {
			return err
		}
		w.Write(append(b, '\n'))
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}
