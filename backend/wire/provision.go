package wire

// PROVISION: a client records a new workspace at a relay that lets it
// (token or open provisioning, issue 15), in place of the operator's
// weald-relay provision. It is sent between CHALLENGE and AUTH (the
// workspace is the HELLO's); docs/protocol/wire.md "Provisioning".

// Frame types of provisioning (handshake range).
const (
	FrameProvision   FrameType = 0x05 // → Provisioned
	FrameProvisioned FrameType = 0x06
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

func init() {
	bodyDecoders[FrameProvision] = func(r *reader) Body {
		return &Provision{GenesisKey: ID(r.Array32()), Token: opaqueMax(r, MaxProvisionToken, "token")}
	}
	bodyDecoders[FrameProvisioned] = func(*reader) Body { return &Provisioned{} }
}
