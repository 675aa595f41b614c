// Package errcode is the one kind of coded error every layer returns: a
// stable code "area/name" and one plain sentence (conventions.md "Error
// codes"). Callers read the code with [Of], never from the error's text.
//
// It imports nothing of Weald's, so every package may import it. The codes
// Go can send are the literal codes passed to [New] and [Errorf] and the
// constants of type [Code] in the tree; TestCodesList keeps them in
// codes.txt and frontend/src/lib/api/codes.ts.
package errcode

import (
	"errors"
	"fmt"
	"strings"
)

// Code is a stable error code "area/name" (or "area/sub/name").
type Code string

// Area is the part of the code before its first slash.
func (c Code) Area() string {
	a, _, _ := strings.Cut(string(c), "/")
	return a
}

// Coded is an error that carries a code.
type Coded interface {
	error
	ErrorCode() Code
}

// Error is a coded error: its code, a sentence and what it wraps.
type Error struct {
	code     Code
	sentence string
	wrapped  error
}

// New returns an error with code and sentence; package-level sentinels made
// with New match with errors.Is by identity.
func New(code Code, sentence string) *Error {
	return &Error{code: code, sentence: sentence}
}

// Errorf returns an error with code and a sentence formatted as fmt.Errorf
// would, wrapping its %w operand.
func Errorf(code Code, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{code: code, sentence: err.Error(), wrapped: errors.Unwrap(err)}
}

// Error reads "code: sentence".
func (e *Error) Error() string {
	if e.sentence == "" {
		return string(e.code)
	}
	return string(e.code) + ": " + e.sentence
}

// ErrorCode returns the code.
func (e *Error) ErrorCode() Code { return e.code }

// ErrorSentence returns the sentence without the code.
func (e *Error) ErrorSentence() string { return e.sentence }

// Unwrap returns the wrapped error, if any.
func (e *Error) Unwrap() error { return e.wrapped }

// Of returns the code of the outermost coded error in err's chain.
func Of(err error) (Code, bool) {
	var c Coded
	if errors.As(err, &c) {
		return c.ErrorCode(), true
	}
	return "", false
}

// SentenceOf returns the sentence of the outermost coded error in err's chain
// (its text after "code: "), or err's whole text when none is coded.
func SentenceOf(err error) string {
	var c Coded
	if !errors.As(err, &c) {
		return err.Error()
	}
	if s, ok := c.(interface{ ErrorSentence() string }); ok {
		return s.ErrorSentence()
	}
	return strings.TrimPrefix(strings.TrimPrefix(c.Error(), string(c.ErrorCode())), ": ")
}
