package wire

import "fmt"

// Kind says what an envelope carries (design/gaps.md "Relay protocol"). The
// relay reads the ct of only the relay-visible kinds ([Kind.RelayVisible]);
// every other ct is opaque to it.
type Kind uint16

// The envelope kinds. Values are stable; a relay rejects any other value with
// [CodeUnknownKind].
const (
	KindMLSCommit           Kind = 0x0001
	KindMLSProposal         Kind = 0x0002
	KindMLSWelcome          Kind = 0x0003
	KindContent             Kind = 0x0010 // an Automerge change, encrypted
	KindCheckpoint          Kind = 0x0020 // ct is a [Checkpoint]
	KindSnapshot            Kind = 0x0021 // an encrypted document snapshot
	KindRetentionTransition Kind = 0x0022 // ct is a [RetentionTransition]
	KindRetentionPolicy     Kind = 0x0023 // ct is a [RetentionPolicy]
	KindRetentionResolution Kind = 0x0024 // ct is a [RetentionResolution]
	KindHeadAttestation     Kind = 0x0030
	KindRecoveryWrap        Kind = 0x0040
	KindInviteBundle        Kind = 0x0050
	KindGroupInfoPublish    Kind = 0x0060
	KindHistoryPublish      Kind = 0x0061
)

var kindNames = map[Kind]string{
	KindMLSCommit:           "mls.commit",
	KindMLSProposal:         "mls.proposal",
	KindMLSWelcome:          "mls.welcome",
	KindContent:             "content",
	KindCheckpoint:          "checkpoint",
	KindSnapshot:            "snapshot",
	KindRetentionTransition: "retention.transition",
	KindRetentionPolicy:     "retention.policy",
	KindRetentionResolution: "retention.resolution",
	KindHeadAttestation:     "head.attestation",
	KindRecoveryWrap:        "recovery.wrap",
	KindInviteBundle:        "invite.bundle",
	KindGroupInfoPublish:    "groupinfo.publish",
	KindHistoryPublish:      "history.publish",
}

// Known reports whether k is one of the defined kinds.
func (k Kind) Known() bool { _, ok := kindNames[k]; return ok }

// RelayVisible reports whether the relay parses the ct of this kind (its ct is
// a public, signed structure rather than ciphertext).
func (k Kind) RelayVisible() bool {
	return k == KindCheckpoint || k == KindRetentionTransition || k == KindRetentionPolicy || k == KindRetentionResolution
}

// String returns the kind's name, or "kind(0x....)" for an unknown value.
func (k Kind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("kind(0x%04x)", uint16(k))
}

// Kinds returns every defined kind in ascending order.
func Kinds() []Kind {
	return []Kind{KindMLSCommit, KindMLSProposal, KindMLSWelcome, KindContent, KindCheckpoint,
		KindSnapshot, KindRetentionTransition, KindRetentionPolicy, KindRetentionResolution, KindHeadAttestation,
		KindRecoveryWrap, KindInviteBundle, KindGroupInfoPublish, KindHistoryPublish}
}
