package wire

// PROVISION: a client records a new workspace at a relay that lets it
// (token or open provisioning, issue 15), in place of the operator's
// weald-relay provision. It is sent between CHALLENGE and AUTH (the
// workspace is the HELLO's); docs/protocol/wire.md "Provisioning".

// Frame types of provisioning (handshake range).
const (
	FrameProvision   FrameType = 0x05 // → Provisioned
	FrameProvisioned FrameType = 0x06
	FrameTeardown    FrameType = 0x07 // → TornDown
	FrameTornDown    FrameType = 0x08
)

// MaxProvisionToken bounds the token of a [Provision].
const MaxProvisionToken = 64

// Provision asks the relay to record the HELLO's workspace with its genesis
// key: struct { opaque genesis_key[32]; opaque token<V>; }. token is empty
// on a relay in open mode; at most [MaxProvisionToken] bytes.
type Provision struct {
	GenesisKey ID
	Token      []byte
}

// Provisioned answers Provision: struct {}.
type Provisioned struct{}

func (*Provision) FrameType() FrameType   { return FrameProvision }
func (*Provisioned) FrameType() FrameType { return FrameProvisioned }

func (p *Provision) encode(w *writer) { w.Array32(p.GenesisKey); w.Opaque(p.Token) }
func (*Provisioned) encode(*writer)   {}

// Teardown asks the relay to delete the HELLO's workspace while no trust
// root was ever admitted to it (its genesis key unconsumed; spec/channels.md
// "Ordering at bootstrap": teardown is right only then):
// struct { opaque signature<V>; }, the genesis key's signature under
// [LabelTeardown] over [TeardownContent]. Sent between CHALLENGE and AUTH,
// like [Provision].
type Teardown struct {
	Signature []byte
}

// TornDown answers Teardown: struct {}.
type TornDown struct{}

func (*Teardown) FrameType() FrameType { return FrameTeardown }
func (*TornDown) FrameType() FrameType { return FrameTornDown }

func (t *Teardown) encode(w *writer) { w.Opaque(t.Signature) }
func (*TornDown) encode(*writer)     {}

// TeardownContent is what a Teardown's signature covers: the relay's id
// (from its CHALLENGE) and the workspace, so a signature made for one relay
// tears down nothing at another.
func TeardownContent(relay, ws ID) []byte {
	return append(append(make([]byte, 0, 64), relay[:]...), ws[:]...)
}

func init() {
	bodyDecoders[FrameProvision] = func(r *reader) Body {
		return &Provision{GenesisKey: ID(r.Array32()), Token: opaqueMax(r, MaxProvisionToken, "token")}
	}
	bodyDecoders[FrameProvisioned] = func(*reader) Body { return &Provisioned{} }
	bodyDecoders[FrameTeardown] = func(r *reader) Body { return &Teardown{Signature: opaqueMax(r, 64, "signature")} }
	bodyDecoders[FrameTornDown] = func(*reader) Body { return &TornDown{} }
}
