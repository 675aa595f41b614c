package groups

import (
	"bytes"
	"fmt"
	"time"

	"weald/backend/identity"
	"weald/backend/internal/codec"
	"weald/backend/roster"
)

// LabelJoin labels the device signature in JoinData.
const LabelJoin identity.Label = "join"

// Join paths in JoinData.
const (
	PathSelfJoin uint8 = 1 // a parent channel, by a device already in the root
	PathInvite   uint8 = 2 // the workspace root, by an invite redemption
	// PathRecovery: the root or a parent channel, by a device admitted by
	// recover-device, against its person's recovery wrap (recover.go).
	PathRecovery uint8 = 3
)

// JoinDataVersion is the version NewJoinData writes. Version 2 adds Time;
// version 1 (no time) still decodes, for the logs written before it.
const JoinDataVersion uint8 = 2

// JoinData is the authenticated_data of every Weald external commit
// (spec/channels.md "The join", step 3; docs/protocol/groups.md).
type JoinData struct {
	Version    uint8 // 1 or 2; the zero value encodes as JoinDataVersion
	Path       uint8
	Device     identity.DeviceID
	RosterRef  roster.Ref
	PolicyHash [32]byte
	LeafSigKey []byte
	// Time (version 2, unix milliseconds) is when the joiner built the
	// commit, by its own clock and under its signature: the time every
	// receiver counts the self-join limit by (JoinRate). Zero in version 1.
	Time      time.Time
	Signature []byte
}

func (j *JoinData) version() uint8 {
	if j.Version == 0 {
		return JoinDataVersion
	}
	return j.Version
}

func (j *JoinData) encodeFields(w *codec.Writer) {
	v := j.version()
	w.U8(v)
	w.U8(j.Path)
	w.Raw(j.Device[:])
	w.U64(uint64(j.RosterRef.Index))
	w.Raw(j.RosterRef.Head[:])
	w.Raw(j.PolicyHash[:])
	w.Opaque(j.LeafSigKey)
	if v >= 2 {
		w.U64(identity.UnixMilli(j.Time))
	}
}

// TBS is what the device signs: the group, the epoch the commit creates and
// the fields without the signature.
func (j *JoinData) TBS(group [32]byte, epoch uint64) []byte {
	var w codec.Writer
	w.Raw(group[:])
	w.U64(epoch)
	j.encodeFields(&w)
	return w.Bytes()
}

// Encode returns the canonical encoding.
func (j *JoinData) Encode() []byte {
	var w codec.Writer
	j.encodeFields(&w)
	w.Opaque(j.Signature)
	return w.Bytes()
}

// DecodeJoinData parses JoinData.
func DecodeJoinData(data []byte) (JoinData, error) {
	r := codec.NewReader(data)
	var j JoinData
	v := r.U8()
	j.Path = r.U8()
	j.Device = identity.DeviceID(r.Array32())
	idx := r.U64()
	j.RosterRef.Head = roster.Head(r.Array32())
	j.PolicyHash = r.Array32()
	j.LeafSigKey = r.OpaqueMax(256)
	if v >= 2 {
		j.Time = identity.ReadTime(r)
	}
	j.Signature = r.OpaqueMax(256)
	if err := r.Done(); err != nil {
		return JoinData{}, fmt.Errorf("%w: join data: %v", ErrDecode, err)
	}
	if v != 1 && v != 2 {
		return JoinData{}, fmt.Errorf("%w: join data version %d", ErrVersion, v)
	}
	j.Version = v
	if j.Path != PathSelfJoin && j.Path != PathInvite && j.Path != PathRecovery {
		return JoinData{}, fmt.Errorf("%w: join path %d", ErrDecode, j.Path)
	}
	if idx > 1<<40 {
		return JoinData{}, fmt.Errorf("%w: roster index out of range", ErrDecode)
	}
	j.RosterRef.Index = int(idx)
	return j, nil
}

// NewJoinData builds and signs the join data for an external commit into
// group creating epoch, by device dev with leaf signature key leafKey, at
// now (the joiner's clock).
func NewJoinData(dev identity.DevicePrivate, ref roster.Ref, path uint8, policy *roster.GroupPolicy, group [32]byte, epoch uint64, leafKey []byte, now time.Time) (*JoinData, error) {
	j := &JoinData{Version: JoinDataVersion, Path: path, Device: identity.DeviceIDOf(dev.Public()), RosterRef: ref,
		PolicyHash: policy.Hash(), LeafSigKey: append([]byte(nil), leafKey...), Time: now}
	sig, err := dev.Sign(LabelJoin, j.TBS(group, epoch))
	if err != nil {
		return nil, err
	}
	j.Signature = sig
	return j, nil
}

// Joiner is what a receiver knows of the leaf an external commit added.
type Joiner struct {
	Identity   []byte // the leaf's basic credential identity
	SigningKey []byte // the leaf's signature key
}

// ValidateJoin checks an external commit into group (now at epoch, the
// epoch the commit created) against the roster, by every receiving client
// (spec/channels.md "The join", "Every receiving client validates";
// docs/protocol/groups.md "Validation on receipt"). inGroup reports the
// joiner's membership of other groups as the receiver sees it (the root).
// A nil error means the join is legitimate; otherwise the error wraps
// ErrForgedJoin and says why in one sentence.
func ValidateJoin(st *roster.State, group identity.GroupID, epoch uint64, ad []byte, j Joiner, inRoot bool) (*JoinData, error) {
	forged := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrForgedJoin, fmt.Sprintf(format, a...))
	}
	if len(j.Identity) != 32 {
		return nil, forged("the joining leaf's credential is not a 32-byte principal id")
	}
	var pid [32]byte
	copy(pid[:], j.Identity)
	if _, isAgent := st.Agent(identity.AgentID(pid)); isAgent {
		return nil, forged("an agent may not join any group by external commit")
	}
	jd, err := DecodeJoinData(ad)
	if err != nil {
		return nil, forged("the commit carries no valid join data (%v)", err)
	}
	if jd.Device != identity.DeviceID(pid) {
		return nil, forged("the join data names another device than the joining leaf")
	}
	if !bytes.Equal(jd.LeafSigKey, j.SigningKey) {
		return nil, forged("the join data names another signature key than the joining leaf")
	}
	dev, ok := st.Device(jd.Device)
	if !ok {
		return nil, forged("the joining device %s is not in the roster", jd.Device.ShortString())
	}
	if err := dev.Public.Verify(LabelJoin, jd.TBS(group, epoch), jd.Signature); err != nil {
		return nil, forged("the join data is not signed by the roster's key for %s", jd.Device.ShortString())
	}
	if dev.Admitted != jd.RosterRef {
		return nil, forged("the roster entry reference does not match the device's admission")
	}
	if !st.DeviceLive(jd.Device) {
		return nil, forged("the joining device %s is revoked", jd.Device.ShortString())
	}
	g, ok := st.Group(group)
	if !ok || g.Deleted {
		return nil, forged("the group is not in the roster")
	}
	if jd.PolicyHash != g.Policy.Hash() {
		return nil, forged("the join names a different group policy than the roster's")
	}
	if jd.Path == PathRecovery {
		// A recovered device enters against its person's recovery wrap:
		// the root, or a parent channel once it is in the root.
		switch {
		case dev.RecoveredBy == (identity.RecoveryID{}):
			return nil, forged("only a device admitted by recover-device joins by recovery wrap")
		case g.Policy.Admission == roster.AdmissionParent && !inRoot:
			return nil, ErrJoinerNotInRoot
		case g.Policy.Admission == roster.AdmissionExplicit:
			return nil, forged("an explicit group takes no external commits")
		}
		return &jd, nil
	}
	switch g.Policy.Admission {
	case roster.AdmissionEveryone:
		if jd.Path != PathInvite || dev.Invite == nil {
			return nil, forged("the workspace root is entered only by redeeming an invite")
		}
	case roster.AdmissionParent:
		if jd.Path != PathSelfJoin {
			return nil, forged("a parent channel is entered by self-join")
		}
		if !inRoot {
			return nil, ErrJoinerNotInRoot
		}
	default:
		return nil, forged("an explicit group takes no external commits")
	}
	return &jd, nil
}
