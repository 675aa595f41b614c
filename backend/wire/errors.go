package wire

import (
	"fmt"
	"strings"

	"weald/backend/errcode"
)

// Code is a stable error code "area/name" (conventions "Error codes").
type Code = errcode.Code

// The error codes of the relay protocol. Values never change meaning.
const (
	CodeLogBudgetExhausted Code = "quota/log_budget_exhausted" // {limit_bytes}; no retry interval
	// CodeRosterBudgetExhausted refuses a roster append that would take the
	// workspace's roster over its byte bound {limit_bytes}; no retry interval.
	CodeRosterBudgetExhausted Code = "quota/roster_budget_exhausted"

	CodeCASConflict Code = "cas/conflict" // roster: {head}; access set: {version}

	CodeAuthUnknownKey   Code = "auth/unknown_key"   // key or grant not in the current access set
	CodeAuthRevoked      Code = "auth/revoked"       // key or grant was in an earlier set and is not now
	CodeAuthBadSignature Code = "auth/bad_signature" // a signature does not verify
	CodeAuthNotAdmin     Code = "auth/not_admin"     // the signer may not publish an access set
	CodeAuthGenesisUsed  Code = "auth/genesis_consumed"
	CodeAuthRequired     Code = "auth/required"   // request before authentication
	CodeAuthGrantUsed    Code = "auth/grant_used" // the invite grant already carries another key
	// CodeAuthNotActor refuses a roster operation whose actor is not the
	// connection's principal.
	CodeAuthNotActor Code = "auth/not_actor"
	// CodeAuthRosterKind refuses a roster operation of a kind the connection
	// may not write {type}: a grant connection writes only the redemption of
	// its own invite.
	CodeAuthRosterKind Code = "auth/roster_kind"
	// CodeAuthAgentKind refuses an envelope of an agent's key that is not
	// content {index, kind}: an agent posts content and nothing else, no
	// commit, proposal, bundle or retention record (docs/protocol/agents.md).
	CodeAuthAgentKind Code = "auth/agent_kind"
	// CodeAuthWrongRelay refuses an AUTH made for another relay: it names
	// another host than the one this connection reached, or answers another
	// relay id (docs/protocol/wire.md "Handshake").
	CodeAuthWrongRelay Code = "auth/wrong_relay"

	CodeLimitFrameSize   Code = "limit/frame_size"   // {limit_bytes}
	CodeLimitBatchSize   Code = "limit/batch_size"   // {limit}
	CodeLimitConnections Code = "limit/connections"  // {limit}
	CodeLimitRate        Code = "limit/rate"         // {retry_after_ms}
	CodeLimitFetch       Code = "limit/fetch_limit"  // {limit}
	CodeLimitKeyPackages Code = "limit/key_packages" // {limit}: one-use packages stored per device
	// CodeLimitKeyPackageBytes: the workspace's key packages would pass its byte bound {limit_bytes}.
	CodeLimitKeyPackageBytes Code = "limit/key_package_bytes"
	// CodeLimitSubscriptions refuses a SUBSCRIBE over the per-connection limit {limit}.
	CodeLimitSubscriptions Code = "limit/subscriptions"
	// CodeLimitSlowConsumer closes a subscriber whose outbound queue is full.
	// The client reconnects and fetches from the last seq it holds; nothing is
	// lost, because pushes are only a copy of the log.
	CodeLimitSlowConsumer Code = "limit/slow_consumer"

	// CodeRelayShuttingDown closes connections when the relay stops.
	CodeRelayShuttingDown Code = "relay/shutting_down"

	CodeMalformed      Code = "bad_request/malformed"
	CodeUnknownFrame   Code = "bad_request/unknown_frame" // {type}
	CodeUnknownKind    Code = "bad_request/unknown_kind"  // {index, kind}
	CodeWrongWorkspace Code = "bad_request/wrong_workspace"
	CodeUnknownGroup   Code = "bad_request/unknown_group"
	CodeBadVersion     Code = "bad_request/protocol_version" // {version}
	CodeBadObject      Code = "bad_request/invalid_object"   // a relay-visible ct that does not verify {index}
	// CodeRosterInvalid refuses a roster operation the roster's rules refuse
	// {index, reason, detail}: reason is the roster/... code every client
	// would reject it with.
	CodeRosterInvalid Code = "bad_request/roster_invalid"

	CodeChainGap    Code = "chain/gap"    // {index, expected_ctr}
	CodeChainFork   Code = "chain/fork"   // {index, ctr}
	CodeChainReplay Code = "chain/replay" // {index, ctr}

	CodeWorkspaceUnknown Code = "workspace/unknown"
	CodeWorkspaceExists  Code = "workspace/exists"
	CodeNoAccessSet      Code = "workspace/no_access_set"

	// Provisioning over the wire (PROVISION, docs/protocol/wire.md
	// "Provisioning"). CodeProvisionOperatorOnly: this relay's operator
	// provisions workspaces (weald-relay provision); the rest refuse a token.
	CodeProvisionOperatorOnly Code = "provision/operator_only"
	CodeProvisionTokenMissing Code = "provision/token_required"
	CodeProvisionTokenUnknown Code = "provision/token_unknown"
	CodeProvisionTokenExpired Code = "provision/token_expired"
	CodeProvisionTokenUsedUp  Code = "provision/token_used_up"
	// CodeProvisionActive refuses a TEARDOWN of a workspace whose genesis
	// key was consumed: a trust root was admitted, so it is resumed, never
	// torn down.
	CodeProvisionActive Code = "provision/active"

	CodeKeyPackageNone Code = "keypackage/none" // {owner}
	CodeKeyPackageKind Code = "keypackage/not_device"

	CodeDropUnknownCheckpoint Code = "drop/unknown_checkpoint"
	CodeDropNotCheckpoint     Code = "drop/not_checkpoint"
	CodeDropBadCheckpoint     Code = "drop/bad_checkpoint"
	CodeDropNoChain           Code = "drop/no_retention_chain"
	CodeDropChainFrozen       Code = "drop/chain_frozen"
	CodeDropStaleKey          Code = "drop/stale_retention_key"
	CodeDropBadSignature      Code = "drop/bad_signature"
	CodeDropManifestMismatch  Code = "drop/manifest_mismatch"
	CodeDropIncomplete        Code = "drop/incomplete_manifest"
	CodeDropSnapshotMissing   Code = "drop/snapshot_missing" // {hash}
	CodeDropNoPolicy          Code = "drop/no_policy"
	CodeDropPolicyInactive    Code = "drop/policy_inactive"
	CodeDropNotDue            Code = "drop/not_due" // {due_unix}
	CodeDropBadDestruction    Code = "drop/bad_destruction"

	CodeRetentionBadTransition Code = "retention/bad_transition"
	CodeRetentionBadPolicy     Code = "retention/bad_policy"
	CodeRetentionThreshold     Code = "retention/threshold" // {required, have}
	CodeRetentionBadResolution Code = "retention/bad_resolution"

	CodeInternal Code = "internal/error"
)

// FieldType tags the value of an error [Field].
type FieldType uint8

// Field value types.
const (
	FieldUint  FieldType = 1
	FieldBytes FieldType = 2
	FieldText  FieldType = 3
)

// Field is one typed value of an error:
// struct { opaque name<V>; uint8 type; select(type) { case 1: uint64; case 2, 3: opaque<V>; } }.
type Field struct {
	Name  string
	Type  FieldType
	Uint  uint64
	Bytes []byte
	Text  string
}

// U returns a uint field.
func U(name string, v uint64) Field { return Field{Name: name, Type: FieldUint, Uint: v} }

// B returns a bytes field.
func B(name string, v []byte) Field { return Field{Name: name, Type: FieldBytes, Bytes: v} }

// T returns a text field.
func T(name, v string) Field { return Field{Name: name, Type: FieldText, Text: v} }

// Error is a protocol error: a stable code, typed fields and one plain
// sentence for people. It is also the body of the [FrameError] frame.
type Error struct {
	Code     Code
	Fields   []Field
	Sentence string
}

// Errorf returns an *Error with code, fields and a sentence.
func Errorf(code Code, sentence string, fields ...Field) *Error {
	return &Error{Code: code, Fields: fields, Sentence: sentence}
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	for i, f := range e.Fields {
		if i == 0 {
			b.WriteString(" {")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(f.Name)
		b.WriteString(": ")
		switch f.Type {
		case FieldUint:
			fmt.Fprintf(&b, "%d", f.Uint)
		case FieldBytes:
			fmt.Fprintf(&b, "%x", f.Bytes)
		default:
			b.WriteString(f.Text)
		}
		if i == len(e.Fields)-1 {
			b.WriteString("}")
		}
	}
	if e.Sentence != "" {
		b.WriteString(": ")
		b.WriteString(e.Sentence)
	}
	return b.String()
}

// ErrorCode returns the code (errcode.Of).
func (e *Error) ErrorCode() Code { return e.Code }

// ErrorSentence returns the sentence (errcode.SentenceOf).
func (e *Error) ErrorSentence() string { return e.Sentence }

// Is makes errors.Is match any *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Field returns the field called name.
func (e *Error) Field(name string) (Field, bool) {
	for _, f := range e.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// UintField returns the uint field called name.
func (e *Error) UintField(name string) (uint64, bool) {
	f, ok := e.Field(name)
	return f.Uint, ok && f.Type == FieldUint
}

func (e *Error) encode(w *writer) {
	w.String(string(e.Code))
	w.Vector(func(w *writer) {
		for _, f := range e.Fields {
			w.String(f.Name)
			w.U8(uint8(f.Type))
			switch f.Type {
			case FieldUint:
				w.U64(f.Uint)
			case FieldBytes:
				w.Opaque(f.Bytes)
			default:
				w.String(f.Text)
			}
		}
	})
	w.String(e.Sentence)
}

const maxErrorText = 4096

func decodeError(r *reader) *Error {
	e := &Error{Code: Code(str(r, 256, "code"))}
	list(r, func(r *reader) {
		f := Field{Name: str(r, 256, "field name"), Type: FieldType(r.U8())}
		switch f.Type {
		case FieldUint:
			f.Uint = r.U64()
		case FieldBytes:
			f.Bytes = opaqueMax(r, maxErrorText, "field")
		case FieldText:
			f.Text = str(r, maxErrorText, "field")
		default:
			fail(r, "unknown field type %d", f.Type)
		}
		e.Fields = append(e.Fields, f)
	})
	e.Sentence = str(r, maxErrorText, "sentence")
	return e
}
