package identity

import (
	"fmt"

	"weald/backend/errcode"
	"weald/backend/internal/codec"
)

// LabelLeafBinding labels a principal's signature binding an MLS leaf's
// signature key to it (docs/protocol/identity.md "Leaf binding").
const LabelLeafBinding Label = "mls-leaf"

// ErrLeafBinding is a leaf binding that does not decode.
var ErrLeafBinding = errcode.New("identity/leaf_binding", "the leaf binding is malformed")

// LeafBinding is carried in every Weald MLS leaf (the leaf extension of
// docs/protocol/groups.md "Leaf binding"): the principal that owns the
// leaf, by kind (device or agent), and its roster key's signature over
// LeafBindingTBS. The principal id itself is the leaf's basic credential.
type LeafBinding struct {
	Kind      PrincipalKind
	Signature []byte
}

// LeafBindingTBS is what the principal signs: the workspace, the principal
// and the leaf's MLS signature public key.
//
//	struct { u8 version = 1; opaque workspace[32]; u8 kind; opaque id[32]; opaque leaf_key<V>; }
func LeafBindingTBS(ws WorkspaceID, p Principal, leafKey []byte) []byte {
	var w codec.Writer
	w.U8(1)
	w.Raw(ws[:])
	w.U8(uint8(p.Kind))
	w.Raw(p.ID[:])
	w.Opaque(leafKey)
	return w.Bytes()
}

// SignLeafBinding binds leafKey to the principal p whose roster key is
// priv (a device or agent key) in workspace ws.
func SignLeafBinding[K KeyKind](priv PrivateKey[K], ws WorkspaceID, p Principal, leafKey []byte) (LeafBinding, error) {
	sig, err := priv.Sign(LabelLeafBinding, LeafBindingTBS(ws, p, leafKey))
	if err != nil {
		return LeafBinding{}, err
	}
	return LeafBinding{Kind: p.Kind, Signature: sig}, nil
}

// Verify checks the binding of leafKey to p under p's roster key pub.
func (b LeafBinding) Verify(pub func(Label, []byte, []byte) error, ws WorkspaceID, p Principal, leafKey []byte) error {
	if b.Kind != p.Kind {
		return fmt.Errorf("%w: it names a %s, the leaf a %s", ErrLeafBinding, b.Kind, p.Kind)
	}
	return pub(LabelLeafBinding, LeafBindingTBS(ws, p, leafKey), b.Signature)
}

// Encode returns the extension body:
//
//	struct { u8 version = 1; u8 kind; opaque signature<V>; }
func (b LeafBinding) Encode() []byte {
	var w codec.Writer
	w.U8(1)
	w.U8(uint8(b.Kind))
	w.Opaque(b.Signature)
	return w.Bytes()
}

// DecodeLeafBinding parses an extension body; only device and agent
// bindings exist.
func DecodeLeafBinding(data []byte) (LeafBinding, error) {
	r := codec.NewReader(data)
	v := r.U8()
	b := LeafBinding{Kind: PrincipalKind(r.U8())}
	b.Signature = r.OpaqueMax(64)
	if err := r.Done(); err != nil {
		return LeafBinding{}, fmt.Errorf("%w: %v", ErrLeafBinding, err)
	}
	if v != 1 {
		return LeafBinding{}, fmt.Errorf("%w: version %d", ErrLeafBinding, v)
	}
	if b.Kind != KindDevice && b.Kind != KindAgent {
		return LeafBinding{}, fmt.Errorf("%w: a %s cannot hold a leaf", ErrLeafBinding, b.Kind)
	}
	if len(b.Signature) != 64 {
		return LeafBinding{}, fmt.Errorf("%w: a %d-byte signature", ErrLeafBinding, len(b.Signature))
	}
	return b, nil
}
