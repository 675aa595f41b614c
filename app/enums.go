package app

// The closed sets of strings that cross the binding. Each is a string type
// with one constant per value. A struct field of one of these types carries a
// ts_type tag listing the same values as a TypeScript union ('chan' | 'dm'),
// which `make bindings` copies into frontend/wailsjs/go/models.ts, so the
// frontend reads string-literal unions (frontend/src/lib/api/types.ts).
// TestEnumTagsMatchConstants fails when a tag and the constants disagree.
//
// Wails' own EnumBind is not used: it writes a package's enums in map order,
// so models.ts would change from one `make bindings` to the next.

// ChannelKind is what a listed channel is (spec/channels.md "Direct messages").
type ChannelKind string

const (
	KindChannel ChannelKind = "chan"
	KindDM      ChannelKind = "dm"
)

// Admission is who may join a channel: GroupPolicy.admission
// (spec/channels.md "Group policy").
type Admission string

const (
	AdmissionEveryone Admission = "everyone"
	AdmissionParent   Admission = "parent"
	AdmissionExplicit Admission = "explicit"
)

// History is GroupPolicy.history: whether a newcomer may read what was
// written before they joined.
type History string

const (
	HistoryOpen   History = "open"
	HistoryClosed History = "closed"
)

// MessageState is where a message stands: in the channel's log, waiting in
// this device's outbox, or refused (Message.Error says why).
type MessageState string

const (
	MessageSent    MessageState = "sent"
	MessagePending MessageState = "pending"
	MessageFailed  MessageState = "failed"
)

// MessageChange is a change of this device's to a message of the log that
// waits in the outbox (the message's State says how it stands).
type MessageChange string

const (
	ChangeNone   MessageChange = ""
	ChangeEdit   MessageChange = "edit"
	ChangeDelete MessageChange = "delete"
)

// MessageKind is what a line of a channel is: a chat message, or a notice
// drawn from the roster that Message.Author joined the workspace.
type MessageKind string

const (
	MessageChat   MessageKind = ""
	MessageJoined MessageKind = "joined"
)

// Role is a person's role in the workspace's roster.
type Role string

const (
	RoleMember Role = "member"
	RoleAdmin  Role = "admin"
)

// InviteState is where an invite stands.
type InviteState string

const (
	InviteLive    InviteState = "live"
	InviteUsed    InviteState = "used"
	InviteExpired InviteState = "expired"
	InviteRevoked InviteState = "revoked"
)

// ProjectState is what a project folder's .weald file says.
type ProjectState string

// Project states: no .weald file yet, not bound, bound to a workspace on a
// relay, or a file that cannot be used (Project.Problem says why).
const (
	ProjectNone    ProjectState = "none"
	ProjectLocal   ProjectState = "local"
	ProjectBound   ProjectState = "bound"
	ProjectInvalid ProjectState = "invalid"
)

// RemovalState is where a removal stands (backend/lifecycle State).
type RemovalState string

const (
	RemovalRunning         RemovalState = "running"
	RemovalNeedsReapproval RemovalState = "needs_reapproval"
	RemovalDone            RemovalState = "done"
)

// RemovalStep is a removal's next step (backend/lifecycle Step).
type RemovalStep string

const (
	RemovalStepRevoke  RemovalStep = "revoke"
	RemovalStepRotate  RemovalStep = "rotate"
	RemovalStepWraps   RemovalStep = "wraps"
	RemovalStepInvites RemovalStep = "invites"
	RemovalStepAccess  RemovalStep = "access"
	RemovalStepReceipt RemovalStep = "receipt"
	RemovalStepDone    RemovalStep = "done"
)

// AgentState is where an agent's certificate stands.
type AgentState string

const (
	AgentLive    AgentState = "live"
	AgentExpired AgentState = "expired"
	AgentRevoked AgentState = "revoked"
)

// NotifyLevel is which new messages of a workspace show a desktop
// notification (notify.go): every one of a channel that is not muted, DMs
// and mentions of you (the default), or none.
type NotifyLevel string

const (
	NotifyAll      NotifyLevel = "all"
	NotifyMentions NotifyLevel = "mentions"
	NotifyNone     NotifyLevel = "none"
)

// HealthState is a health check's result (backend/health State).
type HealthState string

const (
	HealthStateOK         HealthState = "ok"
	HealthStateRepaired   HealthState = "repaired"
	HealthStateAction     HealthState = "action"
	HealthStateDismissed  HealthState = "dismissed"
	HealthStateNotChecked HealthState = "not_checked"
)

// HealthSeverity is how much a health finding matters (backend/health Severity).
type HealthSeverity string

const (
	HealthInfo     HealthSeverity = "info"
	HealthWarning  HealthSeverity = "warning"
	HealthCritical HealthSeverity = "critical"
)

// AlertTone is how an alert is shown (backend/engine AlertTone): a notice
// (informational) or a security alert.
type AlertTone string

const (
	ToneNotice AlertTone = "notice"
	ToneAlert  AlertTone = "alert"
)

// AlertOutcome is how an alert was acknowledged on this device: not yet,
// dismissed, or resolved by approving or revoking its device or by
// rotating the recovery phrase.
type AlertOutcome string

const (
	OutcomeNone      AlertOutcome = ""
	OutcomeDismissed AlertOutcome = "dismissed"
	OutcomeApproved  AlertOutcome = "approved"
	OutcomeVouched   AlertOutcome = "vouched"
	OutcomeRevoked   AlertOutcome = "revoked"
	OutcomeRotated   AlertOutcome = "rotated"
)

// RecoveryStage is where a recovery onto this device stands.
type RecoveryStage string

const (
	// RecoveryListing: on probation, and the relay does not let the device
	// connect yet; an admin's app lists it at its next sync.
	RecoveryListing RecoveryStage = "listing"
	// RecoveryApproval: on probation and connected (it reads and writes);
	// an admin approves it.
	RecoveryApproval RecoveryStage = "approval"
	// RecoveryWait: the person was the workspace's only admin: nobody can
	// approve, so the phrase ends the probation itself at ProbationEnds.
	RecoveryWait RecoveryStage = "wait"
	// RecoveryFinishing: the probation is over; the device revokes the
	// person's older devices (the last step) and joins its channels.
	RecoveryFinishing RecoveryStage = "finishing"
	// RecoveryDone: nothing left to do.
	RecoveryDone RecoveryStage = "done"
)
