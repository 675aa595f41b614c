package app

import (
	"context"
	"errors"
	"strings"

	"weald/backend/errcode"
)

// toError turns an error from backend/ into the app.Error the frontend gets:
// a coded error (errcode.Of) keeps its code and sentence; the rest get a code
// from what they are and a sentence that says what to do.
func toError(err error) *Error {
	if err == nil {
		return nil
	}
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return &Error{Code: "relay/unreachable", Message: "The relay did not answer in time; check the address and your connection, then try again."}
	}
	if code, ok := errcode.Of(err); ok {
		return &Error{Code: code, Message: sentenceOf(errcode.SentenceOf(err))}
	}
	text := err.Error()
	low := strings.ToLower(text)
	if strings.Contains(low, "dial") || strings.Contains(low, "connection refused") || strings.Contains(low, "no such host") {
		return &Error{Code: "relay/unreachable", Message: "Weald cannot reach the relay (" + text + "); check the address and your connection, then try again."}
	}
	return &Error{Code: "app/failed", Message: sentenceOf(text)}
}

// FormatError is Wails' ErrorFormatter (main.go): a bound method's error
// reaches the frontend as {code, message}, not as text to parse.
func FormatError(err error) any { return toError(err) }

// sentenceOf capitalises s and ends it with a full stop.
func sentenceOf(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "Something went wrong."
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
