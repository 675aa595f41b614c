package app

// Status is what App.Status returns to the shell.
type Status struct {
	Version      string             `json:"version"`
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
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }
