package wire

import (
	"crypto/ed25519"
	"fmt"

	"weald/backend/internal/codec"
)

// ProtocolVersion is the version a client states in [Hello]. Version 2
// binds AUTH to the relay (the relay id in [Challenge], the host in [Auth]);
// version 3 makes [Envelopes] account for every seq it passes over
// (through, tombstones, deletions), so a withheld envelope is seen.
const ProtocolVersion uint16 = 3

// FrameType is the first byte of every frame.
type FrameType uint8

// Frame types. Requests travel client → relay; every request is answered by
// exactly one response frame carrying its request id (or by [FrameError]).
// Events travel relay → client with request id 0.
const (
	FrameHello     FrameType = 0x01 // → Challenge
	FrameChallenge FrameType = 0x02
	FrameAuth      FrameType = 0x03 // → AuthOK
	FrameAuthOK    FrameType = 0x04

	FrameSend        FrameType = 0x10 // → Ack
	FrameAck         FrameType = 0x11
	FrameFetch       FrameType = 0x12 // → Envelopes
	FrameEnvelopes   FrameType = 0x13
	FrameSubscribe   FrameType = 0x14 // → OK
	FrameUnsubscribe FrameType = 0x15 // → OK
	FrameOK          FrameType = 0x16
	FrameFetchLatest FrameType = 0x17 // → Latest
	FrameLatest      FrameType = 0x18

	FrameRosterAppend   FrameType = 0x20 // → RosterAppended
	FrameRosterAppended FrameType = 0x21
	FrameRosterFetch    FrameType = 0x22 // → RosterOps
	FrameRosterOps      FrameType = 0x23

	FrameAccessSetPublish  FrameType = 0x30 // → AccessSetAccepted
	FrameAccessSetAccepted FrameType = 0x31
	FrameAccessSetGet      FrameType = 0x32 // → AccessSetCurrent
	FrameAccessSetCurrent  FrameType = 0x33

	FrameKeyPackagePut     FrameType = 0x40 // → KeyPackageStock
	FrameKeyPackageStock   FrameType = 0x41
	FrameKeyPackageClaim   FrameType = 0x42 // → KeyPackageClaimed
	FrameKeyPackageClaimed FrameType = 0x43

	FrameDropBefore FrameType = 0x50 // → Dropped
	FrameDropped    FrameType = 0x51

	FrameStatsRequest FrameType = 0x60 // → Stats
	FrameStats        FrameType = 0x61

	FrameError FrameType = 0x70

	FrameEventEnvelopes FrameType = 0x80
	FrameEventAccessSet FrameType = 0x81
	FrameEventRoster    FrameType = 0x82
)

// Body is the typed body of a frame.
type Body interface {
	FrameType() FrameType
	encode(w *writer)
}

// Frame is one protocol message: struct { uint8 type; uint32 request_id; Body body; }.
// The body runs to the end of the frame (a transport message carries exactly
// one frame).
type Frame struct {
	ID   uint32
	Body Body
}

// EncodeFrame returns the encoding of f.
func EncodeFrame(f Frame) ([]byte, error) {
	if f.Body == nil {
		return nil, fmt.Errorf("wire: frame without body")
	}
	w := codec.NewWriter(make([]byte, 0, 64))
	w.U8(uint8(f.Body.FrameType()))
	w.U32(f.ID)
	f.Body.encode(w)
	return w.Bytes(), w.Err()
}

// DecodeFrame decodes one frame. It never panics; an unknown frame type is an
// error wrapping ErrMalformed whose [UnknownFrameError] says which.
func DecodeFrame(b []byte) (Frame, error) {
	r := codec.NewReader(b)
	t := FrameType(r.U8())
	id := r.U32()
	if r.Err() != nil {
		return Frame{}, fmt.Errorf("decode frame: %w", malformed(r.Err()))
	}
	dec, ok := bodyDecoders[t]
	if !ok {
		return Frame{ID: id}, &UnknownFrameError{Type: t}
	}
	body := dec(r)
	if err := done(r); err != nil {
		return Frame{ID: id}, fmt.Errorf("decode frame 0x%02x: %w", uint8(t), err)
	}
	return Frame{ID: id, Body: body}, nil
}

// UnknownFrameError reports a frame type this version does not define.
type UnknownFrameError struct{ Type FrameType }

func (e *UnknownFrameError) Error() string {
	return fmt.Sprintf("wire: unknown frame type 0x%02x", uint8(e.Type))
}

// Unwrap makes errors.Is(err, ErrMalformed) hold.
func (e *UnknownFrameError) Unwrap() error { return ErrMalformed }

var bodyDecoders = map[FrameType]func(r *reader) Body{
	FrameHello:     func(r *reader) Body { return &Hello{Version: r.U16(), Workspace: ID(r.Array32())} },
	FrameChallenge: func(r *reader) Body { return &Challenge{Nonce: ID(r.Array32()), Relay: ID(r.Array32())} },
	FrameAuth:      decodeAuth,
	FrameAuthOK: func(r *reader) Body {
		return &AuthOK{Kind: PrincipalKind(r.U8()), Principal: ID(r.Array32()), AccessVersion: r.U64()}
	},
	FrameSend:        decodeSend,
	FrameAck:         decodeAck,
	FrameFetch:       func(r *reader) Body { return &Fetch{Group: ID(r.Array32()), AfterSeq: r.U64(), Limit: r.U32()} },
	FrameEnvelopes:   decodeEnvelopes,
	FrameSubscribe:   decodeSubscribe,
	FrameUnsubscribe: decodeUnsubscribe,
	FrameOK:          func(r *reader) Body { return &OK{} },
	FrameRosterAppend: func(r *reader) Body {
		return &RosterAppend{ExpectedHead: ID(r.Array32()), Op: opaqueMax(r, MaxCTSize, "op")}
	},
	FrameRosterAppended:    func(r *reader) Body { return &RosterAppended{Index: r.U64(), Head: ID(r.Array32())} },
	FrameRosterFetch:       func(r *reader) Body { return &RosterFetch{AfterIndex: r.U64(), Limit: r.U32()} },
	FrameRosterOps:         decodeRosterOps,
	FrameAccessSetPublish:  func(r *reader) Body { return &AccessSetPublish{Set: decodeAccessSet(r)} },
	FrameAccessSetAccepted: func(r *reader) Body { return &AccessSetAccepted{Version: r.U64()} },
	FrameAccessSetGet:      func(r *reader) Body { return &AccessSetGet{} },
	FrameAccessSetCurrent:  func(r *reader) Body { return &AccessSetCurrent{Set: decodeAccessSet(r), AcceptedAt: r.U64()} },
	FrameKeyPackagePut:     decodeKeyPackagePut,
	FrameKeyPackageStock:   func(r *reader) Body { return &KeyPackageStock{OneUse: r.U32(), LastResort: r.Bool()} },
	FrameKeyPackageClaim:   func(r *reader) Body { return &KeyPackageClaim{Owner: ID(r.Array32())} },
	FrameKeyPackageClaimed: func(r *reader) Body {
		return &KeyPackageClaimed{Owner: ID(r.Array32()), KeyPackage: opaqueMax(r, MaxKeyPackageSize, "key package"), LastResort: r.Bool()}
	},
	FrameDropBefore: func(r *reader) Body { return &DropBeforeRequest{Drop: decodeDropBefore(r)} },
	FrameDropped: func(r *reader) Body {
		return &Dropped{Group: ID(r.Array32()), BarrierSeq: r.U64(), Envelopes: r.U64(), Bytes: r.U64()}
	},
	FrameStatsRequest:   func(r *reader) Body { return &StatsRequest{} },
	FrameStats:          decodeStats,
	FrameError:          func(r *reader) Body { return &ErrorBody{Err: decodeError(r)} },
	FrameEventEnvelopes: func(r *reader) Body { return &EventEnvelopes{Group: ID(r.Array32()), Envelopes: decodeSeqEnvelopes(r)} },
	FrameEventAccessSet: func(r *reader) Body { return &EventAccessSet{Version: r.U64()} },
	FrameEventRoster:    func(r *reader) Body { return &EventRoster{Index: r.U64(), Head: ID(r.Array32())} },
}

// Hello opens a connection: struct { uint16 version; opaque workspace[32]; }.
type Hello struct {
	Version   uint16
	Workspace ID
}

// Challenge is the relay's fresh nonce and its relay id:
// struct { opaque nonce[32]; opaque relay[32]; }. The relay id is random,
// chosen once and kept in the relay's database; a client pins it per
// workspace on first contact (docs/protocol/wire.md "Handshake").
type Challenge struct {
	Nonce ID
	Relay ID
}

// Auth proves a principal:
//
//	struct {
//	    uint8 method;               // PrincipalDevice, PrincipalAgent, PrincipalRecovery or PrincipalGrant
//	    opaque key<V>;              // the Ed25519 public key that answers the challenge
//	    opaque signature<V>;        // Sign(key, "auth-challenge", AuthChallengeContent(binding, key))
//	    opaque grant<V>;            // method = PrincipalGrant: the invite's grant key (32 bytes); otherwise empty
//	    opaque grant_signature<V>;  // method = PrincipalGrant: Sign(grant, "grant-auth", AuthChallengeContent(binding, key)); otherwise empty
//	    opaque host<V>;             // the host the client dialled (CanonicalHost form, 1..255 bytes)
//	} Auth;
//
// With a key method the key must be in the access set's list of that kind.
// With a grant, grant must be a live grant of the current set and
// grant_signature proves its private key over this connection's challenge
// and the joining device's key; key is that device's own key, not yet in the
// set, and the grant carries it (and no other key) until an admin
// republishes the set with it (design/gaps.md "Invites and bootstrap"). The
// invite secret itself never reaches the relay.
//
// Both signatures cover the [AuthBinding]: the relay's nonce and relay id
// and the host the client dialled, so an AUTH one relay obtained answers no
// other relay.
type Auth struct {
	Method         PrincipalKind
	Key            []byte
	Signature      []byte
	Grant          []byte
	GrantSignature []byte
	Host           string
}

func decodeAuth(r *reader) Body {
	a := &Auth{Method: PrincipalKind(r.U8())}
	switch a.Method {
	case PrincipalDevice, PrincipalAgent, PrincipalRecovery, PrincipalGrant:
	default:
		fail(r, "unknown auth method %d", a.Method)
		return a
	}
	a.Key = fixed(r, ed25519.PublicKeySize, "auth key")
	a.Signature = fixed(r, ed25519.SignatureSize, "auth signature")
	if a.Method == PrincipalGrant {
		a.Grant = fixed(r, ed25519.PublicKeySize, "grant key")
		a.GrantSignature = fixed(r, ed25519.SignatureSize, "grant signature")
	} else {
		opaqueMax(r, 0, "grant key of a key auth")
		opaqueMax(r, 0, "grant signature of a key auth")
	}
	a.Host = str(r, MaxHostLen, "auth host")
	if r.Err() == nil && (a.Host == "" || CanonicalHost(a.Host) != a.Host) {
		fail(r, "auth host %q is not a canonical host", a.Host)
	}
	return a
}

// SignChallenge returns an Auth frame body for priv answering the challenge
// b with a device, agent or recovery key.
func SignChallenge(priv ed25519.PrivateKey, kind PrincipalKind, b AuthBinding) *Auth {
	pub := priv.Public().(ed25519.PublicKey)
	return &Auth{Method: kind, Key: append([]byte(nil), pub...), Host: b.Host,
		Signature: Sign(priv, LabelAuthChallenge, AuthChallengeContent(b, pub))}
}

// SignGrantChallenge returns the Auth frame body of a joining device priv
// carried by the invite grant key grant: both sign the same challenge
// content, which names the device's key.
func SignGrantChallenge(priv, grant ed25519.PrivateKey, b AuthBinding) *Auth {
	a := SignChallenge(priv, PrincipalGrant, b)
	a.Grant = append([]byte(nil), grant.Public().(ed25519.PublicKey)...)
	a.GrantSignature = Sign(grant, LabelGrantAuth, AuthChallengeContent(b, a.Key))
	return a
}

// VerifyChallenge checks a's signature over the challenge content of b and,
// for a grant, the grant key's signature over the same content. The caller
// has checked that b.Host is a host it serves; a's own Host must be it.
func (a *Auth) VerifyChallenge(b AuthBinding) error {
	if a.Host != b.Host {
		return ErrBadSignature
	}
	content := AuthChallengeContent(b, a.Key)
	if err := Verify(a.Key, LabelAuthChallenge, content, a.Signature); err != nil {
		return err
	}
	if a.Method != PrincipalGrant {
		return nil
	}
	return Verify(a.Grant, LabelGrantAuth, content, a.GrantSignature)
}

// AuthOK confirms authentication:
// struct { uint8 kind; opaque principal[32]; uint64 access_version; }.
// principal is the KeyID of the authenticated key (for a grant, of the
// joining device's key).
type AuthOK struct {
	Kind          PrincipalKind
	Principal     ID
	AccessVersion uint64
}

// Send submits a batch of envelopes, accepted all or none:
// struct { Envelope envelopes<V>; }.
type Send struct{ Envelopes []Envelope }

func decodeSend(r *reader) Body {
	s := &Send{}
	list(r, func(r *reader) { s.Envelopes = append(s.Envelopes, decodeEnvelope(r)) })
	return s
}

// AckItem is the relay's receipt for one envelope:
// struct { opaque group[32]; uint64 seq; opaque hash[32]; }.
type AckItem struct {
	Group ID
	Seq   uint64
	Hash  ID
}

// Ack answers Send after the batch is durably committed: struct { AckItem items<V>; }.
type Ack struct{ Items []AckItem }

func decodeAck(r *reader) Body {
	a := &Ack{}
	list(r, func(r *reader) {
		a.Items = append(a.Items, AckItem{Group: ID(r.Array32()), Seq: r.U64(), Hash: ID(r.Array32())})
	})
	return a
}

// Fetch asks for a group's envelopes with seq > after_seq:
// struct { opaque group[32]; uint64 after_seq; uint32 limit; }.
type Fetch struct {
	Group    ID
	AfterSeq uint64
	Limit    uint32
}

// Envelopes answers Fetch:
//
//	struct {
//	    opaque group[32];
//	    SeqEnvelope envelopes<V>;   // ascending seq
//	    uint64 head_seq;            // the group's highest seq
//	    uint64 dropped_below;       // seqs below this were dropped (except anchors); 0 if none
//	    bool more;
//	    uint64 through;             // every seq in (after_seq, through] is in envelopes, below dropped_below or in deleted
//	    Tombstone deleted<V>;       // recovery.wraps deleted by WRAPS_DELETE in (after_seq, through], ascending seq
//	    WrapsDelete deletions<V>;   // the signed instructions the tombstones name, each once
//	} Envelopes;
//
// See [Tombstone] and docs/protocol/wire.md "Gaps".
type Envelopes struct {
	Group        ID
	Envelopes    []SeqEnvelope
	HeadSeq      uint64
	DroppedBelow uint64
	More         bool
	Through      uint64
	Deleted      []Tombstone
	Deletions    []WrapsDelete
}

func encodeSeqEnvelopes(w *writer, es []SeqEnvelope) {
	w.Vector(func(w *writer) {
		for i := range es {
			w.U64(es[i].Seq)
			es[i].Envelope.encode(w)
		}
	})
}

func decodeSeqEnvelopes(r *reader) []SeqEnvelope {
	var out []SeqEnvelope
	list(r, func(r *reader) { out = append(out, SeqEnvelope{Seq: r.U64(), Envelope: decodeEnvelope(r)}) })
	return out
}

func decodeEnvelopes(r *reader) Body {
	e := &Envelopes{Group: ID(r.Array32())}
	e.Envelopes = decodeSeqEnvelopes(r)
	e.HeadSeq = r.U64()
	e.DroppedBelow = r.U64()
	e.More = r.Bool()
	e.Through = r.U64()
	e.Deleted = decodeTombstones(r)
	list(r, func(r *reader) { e.Deletions = append(e.Deletions, *decodeWrapsDelete(r).(*WrapsDelete)) })
	return e
}

// SubscribeItem names a group and the seq the subscriber already has.
type SubscribeItem struct {
	Group    ID
	AfterSeq uint64
}

// Subscribe asks for EventEnvelopes pushes: struct { SubscribeItem items<V>; }
// with SubscribeItem = struct { opaque group[32]; uint64 after_seq; }.
type Subscribe struct{ Items []SubscribeItem }

func decodeSubscribe(r *reader) Body {
	s := &Subscribe{}
	list(r, func(r *reader) { s.Items = append(s.Items, SubscribeItem{Group: ID(r.Array32()), AfterSeq: r.U64()}) })
	return s
}

// Unsubscribe stops pushes: struct { opaque groups<V>; } (32-byte ids).
type Unsubscribe struct{ Groups []ID }

func decodeUnsubscribe(r *reader) Body {
	u := &Unsubscribe{}
	list(r, func(r *reader) { u.Groups = append(u.Groups, ID(r.Array32())) })
	return u
}

// OK is an empty success answer.
type OK struct{}

// RosterAppend appends an opaque roster operation if the roster head is
// expected_head: struct { opaque expected_head[32]; opaque op<V>; }.
type RosterAppend struct {
	ExpectedHead ID
	Op           []byte
}

// RosterAppended answers RosterAppend: struct { uint64 index; opaque head[32]; }.
// index counts from 1; head = SHA-256(op).
type RosterAppended struct {
	Index uint64
	Head  ID
}

// RosterFetch asks for operations with index > after_index:
// struct { uint64 after_index; uint32 limit; }.
type RosterFetch struct {
	AfterIndex uint64
	Limit      uint32
}

// RosterOps answers RosterFetch:
// struct { uint64 first_index; opaque ops<V> (each opaque<V>); opaque head[32]; uint64 head_index; bool more; }.
type RosterOps struct {
	FirstIndex uint64
	Ops        [][]byte
	Head       ID
	HeadIndex  uint64
	More       bool
}

func decodeRosterOps(r *reader) Body {
	o := &RosterOps{FirstIndex: r.U64()}
	list(r, func(r *reader) { o.Ops = append(o.Ops, opaqueMax(r, MaxCTSize, "op")) })
	o.Head = ID(r.Array32())
	o.HeadIndex = r.U64()
	o.More = r.Bool()
	return o
}

// AccessSetPublish publishes version current+1: struct { AccessSet set; }.
type AccessSetPublish struct{ Set AccessSet }

// AccessSetAccepted answers AccessSetPublish: struct { uint64 version; }.
type AccessSetAccepted struct{ Version uint64 }

// AccessSetGet asks for the current access set (empty body).
type AccessSetGet struct{}

// AccessSetCurrent answers AccessSetGet:
// struct { AccessSet set; uint64 accepted_at; } (Unix seconds, the relay's
// clock when it accepted the set).
type AccessSetCurrent struct {
	Set        AccessSet
	AcceptedAt uint64
}

// MaxKeyPackageSize bounds one key package.
const MaxKeyPackageSize = 64 << 10

// KeyPackageItem is one key package to store.
type KeyPackageItem struct {
	KeyPackage []byte
	LastResort bool
}

// KeyPackagePut stores key packages for the authenticated device:
// struct { KeyPackageItem items<V>; } with KeyPackageItem = struct { opaque key_package<V>; bool last_resort; }.
// A last-resort item replaces the previous last-resort package.
type KeyPackagePut struct{ Items []KeyPackageItem }

func decodeKeyPackagePut(r *reader) Body {
	p := &KeyPackagePut{}
	list(r, func(r *reader) {
		p.Items = append(p.Items, KeyPackageItem{KeyPackage: opaqueMax(r, MaxKeyPackageSize, "key package"), LastResort: r.Bool()})
	})
	return p
}

// KeyPackageStock answers KeyPackagePut: struct { uint32 one_use; bool last_resort; }.
type KeyPackageStock struct {
	OneUse     uint32
	LastResort bool
}

// KeyPackageClaim takes one key package of a device: struct { opaque owner[32]; }.
// A one-use package is removed when claimed; the last-resort one is returned
// only when none is left and is kept.
type KeyPackageClaim struct{ Owner ID }

// KeyPackageClaimed answers KeyPackageClaim:
// struct { opaque owner[32]; opaque key_package<V>; bool last_resort; }.
type KeyPackageClaimed struct {
	Owner      ID
	KeyPackage []byte
	LastResort bool
}

// DropBeforeRequest carries a [DropBefore]: struct { DropBefore drop; }.
type DropBeforeRequest struct{ Drop DropBefore }

// Dropped answers DropBeforeRequest:
// struct { opaque group[32]; uint64 barrier_seq; uint64 envelopes; uint64 bytes; }.
type Dropped struct {
	Group      ID
	BarrierSeq uint64
	Envelopes  uint64
	Bytes      uint64
}

// StatsRequest asks for the workspace's stats (empty body).
type StatsRequest struct{}

// Stats answers StatsRequest:
//
//	struct {
//	    opaque workspace[32];
//	    uint64 log_bytes;            // the trigger-maintained ct byte counter
//	    uint64 limit_bytes;          // 0 = no budget
//	    uint64 envelopes;
//	    uint64 groups;
//	    uint32 retention_days;       // WEALD_RELAY_RETENTION_DAYS; 0 = off
//	    uint64 over_retention;       // envelopes older than retention_days (a warning only)
//	    uint64 oldest_unix;          // accept time of the oldest retained envelope; 0 if none
//	} Stats;
type Stats struct {
	Workspace     ID
	LogBytes      uint64
	LimitBytes    uint64
	Envelopes     uint64
	Groups        uint64
	RetentionDays uint32
	OverRetention uint64
	OldestUnix    uint64
}

func decodeStats(r *reader) Body {
	return &Stats{Workspace: ID(r.Array32()), LogBytes: r.U64(), LimitBytes: r.U64(), Envelopes: r.U64(),
		Groups: r.U64(), RetentionDays: r.U32(), OverRetention: r.U64(), OldestUnix: r.U64()}
}

// ErrorBody carries an [Error]:
// struct { opaque code<V>; Field fields<V>; opaque sentence<V>; }.
type ErrorBody struct{ Err *Error }

// EventEnvelopes pushes newly accepted envelopes of a subscribed group:
// struct { opaque group[32]; SeqEnvelope envelopes<V>; }.
type EventEnvelopes struct {
	Group     ID
	Envelopes []SeqEnvelope
}

// EventAccessSet tells that a new access set version was accepted:
// struct { uint64 version; }.
type EventAccessSet struct{ Version uint64 }

// EventRoster tells that the roster head moved: struct { uint64 index; opaque head[32]; }.
type EventRoster struct {
	Index uint64
	Head  ID
}

func (*Hello) FrameType() FrameType             { return FrameHello }
func (*Challenge) FrameType() FrameType         { return FrameChallenge }
func (*Auth) FrameType() FrameType              { return FrameAuth }
func (*AuthOK) FrameType() FrameType            { return FrameAuthOK }
func (*Send) FrameType() FrameType              { return FrameSend }
func (*Ack) FrameType() FrameType               { return FrameAck }
func (*Fetch) FrameType() FrameType             { return FrameFetch }
func (*Envelopes) FrameType() FrameType         { return FrameEnvelopes }
func (*Subscribe) FrameType() FrameType         { return FrameSubscribe }
func (*Unsubscribe) FrameType() FrameType       { return FrameUnsubscribe }
func (*OK) FrameType() FrameType                { return FrameOK }
func (*RosterAppend) FrameType() FrameType      { return FrameRosterAppend }
func (*RosterAppended) FrameType() FrameType    { return FrameRosterAppended }
func (*RosterFetch) FrameType() FrameType       { return FrameRosterFetch }
func (*RosterOps) FrameType() FrameType         { return FrameRosterOps }
func (*AccessSetPublish) FrameType() FrameType  { return FrameAccessSetPublish }
func (*AccessSetAccepted) FrameType() FrameType { return FrameAccessSetAccepted }
func (*AccessSetGet) FrameType() FrameType      { return FrameAccessSetGet }
func (*AccessSetCurrent) FrameType() FrameType  { return FrameAccessSetCurrent }
func (*KeyPackagePut) FrameType() FrameType     { return FrameKeyPackagePut }
func (*KeyPackageStock) FrameType() FrameType   { return FrameKeyPackageStock }
func (*KeyPackageClaim) FrameType() FrameType   { return FrameKeyPackageClaim }
func (*KeyPackageClaimed) FrameType() FrameType { return FrameKeyPackageClaimed }
func (*DropBeforeRequest) FrameType() FrameType { return FrameDropBefore }
func (*Dropped) FrameType() FrameType           { return FrameDropped }
func (*StatsRequest) FrameType() FrameType      { return FrameStatsRequest }
func (*Stats) FrameType() FrameType             { return FrameStats }
func (*ErrorBody) FrameType() FrameType         { return FrameError }
func (*EventEnvelopes) FrameType() FrameType    { return FrameEventEnvelopes }
func (*EventAccessSet) FrameType() FrameType    { return FrameEventAccessSet }
func (*EventRoster) FrameType() FrameType       { return FrameEventRoster }
