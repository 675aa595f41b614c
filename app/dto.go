package app

import "weald/backend/errcode"

// Status is what App.Status returns to the shell.
type Status struct {
	Version      string             `json:"version"` // backend/version: git describe, stamped by make
	Commit       string             `json:"commit"`
	DataDir      string             `json:"dataDir"`
	HasWorkspace bool               `json:"hasWorkspace"`
	Workspaces   []WorkspaceSummary `json:"workspaces"`
}

// WorkspaceSummary names one workspace held on this machine.
type WorkspaceSummary struct {
	ID string `json:"id"`
}

// Error is the error every bound method returns: a stable code and one plain
// sentence saying what happened and what to do.
type Error struct {
	Code    errcode.Code `json:"code"`
	Message string       `json:"message"`
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// ErrorCode returns the code (errcode.Of).
func (e *Error) ErrorCode() errcode.Code { return e.Code }

// ErrorSentence returns the sentence (errcode.SentenceOf).
func (e *Error) ErrorSentence() string { return e.Message }
