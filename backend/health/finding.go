package health

import (
	"encoding/json"
	"time"
)

// ID names a check; ids are stable (stored reports, the CLI and the UI use
// them).
type ID string

// The checks, in the order of the spec's table.
const (
	RecoveryWrap      ID = "recovery_wrap"
	RecoveryDirectory ID = "recovery_directory"
	HistoryPublish    ID = "history_publish"
	HeadAttestations  ID = "head_attestations"
	Probation         ID = "probationary_authorizer"
	FrozenChain       ID = "frozen_retention_chain"
	AccessSet         ID = "access_set_fresh"
	AgentLeaves       ID = "expired_agent_leaves"
	TransparencyLog   ID = "transparency_log"
	AdminDevices      ID = "admin_devices"
	Storage           ID = "storage"
)

// State is what a check found.
type State string

const (
	// StateOK: nothing to do.
	StateOK State = "ok"
	// StateRepaired: the check failed and the client repaired it itself,
	// as the spec says it does.
	StateRepaired State = "repaired"
	// StateAction: the check failed and needs someone to act (Action).
	StateAction State = "action"
	// StateDismissed: a failure the user dismissed once (admin devices
	// only, as the spec allows).
	StateDismissed State = "dismissed"
	// StateNotChecked: this client does not hold what the check needs
	// (Finding says what); it is neither passed nor failed.
	StateNotChecked State = "not_checked"
)

// Severity ranks a failure.
type Severity string

const (
	Info     Severity = "info"
	Warning  Severity = "warning"
	Critical Severity = "critical"
)

// Action is a finding's resolve action: an id the UI maps to a control,
// the label it shows and, where one exists, the CLI command that does it.
type Action struct {
	ID      string `json:"id"`
	Label   string `json:"label"`
	Command string `json:"command,omitempty"`
}

// Finding is one check's result.
type Finding struct {
	Check    ID       `json:"check"`
	Title    string   `json:"title"`
	State    State    `json:"state"`
	Severity Severity `json:"severity"`
	// Finding is one plain sentence: what is true now.
	Finding string `json:"finding"`
	// Action is set when State is StateAction (or StateDismissed).
	Action *Action `json:"action,omitempty"`
	// Groups names the channels concerned, if any.
	Groups []string `json:"groups,omitempty"`
}

// NeedsAction reports whether f asks someone to act.
func (f Finding) NeedsAction() bool { return f.State == StateAction }

// Report is one run of every check.
type Report struct {
	At       time.Time `json:"at"`
	Findings []Finding `json:"findings"`
}

// NeedsAction reports whether any finding asks someone to act.
func (r *Report) NeedsAction() bool {
	for _, f := range r.Findings {
		if f.NeedsAction() {
			return true
		}
	}
	return false
}

// Finding returns the finding of check id.
func (r *Report) Finding(id ID) (Finding, bool) {
	for _, f := range r.Findings {
		if f.Check == id {
			return f, true
		}
	}
	return Finding{}, false
}

// Encode is the stored form of a report (JSON).
func (r *Report) Encode() ([]byte, error) { return json.Marshal(r) }

// DecodeReport reads a stored report.
func DecodeReport(b []byte) (*Report, error) {
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
