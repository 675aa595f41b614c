package app

import "context"

// Emitter delivers an event from Go to every page of the frontend. The desktop
// window (main.go, through the Wails runtime) and the e2e build (main_e2e.go,
// through the shim's server-sent events) each provide one; the frontend
// receives it with EventsOn in src/lib/api. ctx is the one the host passed to
// App.Startup.
type Emitter interface {
	Emit(ctx context.Context, name string, data ...any)
}

// Event names the frontend subscribes to (src/lib/api/events.ts).
const (
	// EventProjectChanged carries one Project whenever a known folder's
	// `.weald` file appears, changes, becomes invalid or goes away, or the
	// folder is added, bound or forgotten.
	EventProjectChanged = "project:changed"
	// EventWorkspacesChanged carries []Workspace (created, joined, ready,
	// connected, failed).
	EventWorkspacesChanged = "workspaces:changed"
	// EventChannelsChanged carries ChannelsChanged (a channel appeared,
	// was joined, renamed, muted, moved, or its unread count changed).
	EventChannelsChanged = "channels:changed"
	// EventMessagesChanged carries MessagesChanged: a channel has new messages.
	EventMessagesChanged = "messages:changed"
	// EventProgress carries Progress (joining many channels, a first sync).
	EventProgress = "progress"
	// EventAlert carries Alert (a security alert from the engine).
	EventAlert = "alert"
	// EventOpenChannel carries OpenChannel: show this channel (the person
	// clicked its desktop notification).
	EventOpenChannel = "channel:open"
	// EventLaunchLink carries nothing: a launch handed a weald:// link to
	// this running app; the frontend takes it with App.TakeLaunchLink.
	EventLaunchLink = "launch:link"
	// EventHealthChanged carries HealthChanged: what the Encryption &
	// health panel shows may have changed (a health check ran, or the
	// roster changed the retention changes waiting for approval).
	EventHealthChanged = "health:changed"
)

// HealthChanged names the workspace whose health state may have changed.
type HealthChanged struct {
	Workspace string `json:"workspace"`
}

// OpenChannel is a channel the frontend is asked to show.
type OpenChannel struct {
	Workspace string `json:"workspace"`
	Channel   string `json:"channel"`
	// View is "security" to open the workspace's Security view (a security
	// alert's notification) instead of a channel; "" otherwise.
	View string `json:"view,omitempty"`
}

// discard is the Emitter used when the host gives none (tests).
type discard struct{}

func (discard) Emit(context.Context, string, ...any) {}
