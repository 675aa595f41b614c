package engine

// EventKind says what an Event reports. The values are stable strings, so a
// UI or the CLI's `run --json` can switch on them.
type EventKind string

// Event kinds.
const (
	EventReady      EventKind = "ready"      // the workspace finished setup and can be used
	EventChannels   EventKind = "channels"   // the channel list changed (a group created, joined, renamed)
	EventMessages   EventKind = "messages"   // Channel has new or changed messages
	EventRoster     EventKind = "roster"     // the roster moved (members, invites)
	EventProgress   EventKind = "progress"   // long work: Task, Done of Total
	EventAlert      EventKind = "alert"      // a security alert: Code and Message (e.g. join/forged)
	EventConnection EventKind = "connection" // Connected changed
	EventProblem    EventKind = "problem"    // the background sync failed (Code; Message: a coded error's sentence, else the whole error) or, with no Code, works again
	EventAdded      EventKind = "added"      // this device was added to Channel (an explicit group) by a Welcome
)

// Event is one notification to the UI. Fields not used by a kind are zero.
type Event struct {
	Kind      EventKind `json:"kind"`
	Workspace string    `json:"workspace"`
	Channel   string    `json:"channel,omitempty"` // group id (hex)
	Task      string    `json:"task,omitempty"`
	Done      int       `json:"done,omitempty"`
	Total     int       `json:"total,omitempty"`
	Code      string    `json:"code,omitempty"`
	Message   string    `json:"message,omitempty"`
	Connected bool      `json:"connected,omitempty"`
}

func (e *Engine) emit(ev Event) {
	ev.Workspace = e.meta.Workspace.hex()
	if e.opts.OnEvent != nil {
		e.opts.OnEvent(ev)
	}
}

func (e *Engine) progress(task string, done, total int) {
	e.emit(Event{Kind: EventProgress, Task: task, Done: done, Total: total})
}
