// Package proposal implements the MLS proposals and commits of RFC 9420
// §12.1–§12.4: Add, Update, Remove, PreSharedKey (with PreSharedKeyID,
// §8.4), ReInit, ExternalInit and GroupContextExtensions, ProposalOrRef
// (by value or by reference) and Commit, with their TLS encodings.
//
// Decoding checks syntax only. Whether a list of proposals is valid for a
// group (§12.2) is decided by the group state machine (package mls).
package proposal

import (
	"fmt"

	"weald/backend/errcode"
	"weald/backend/internal/codec"
	"weald/backend/mls/keyschedule"
	"weald/backend/mls/tree"
)

// Sentinel errors; each starts with a stable code.
var (
	ErrDecode      = errcode.New("mls/proposal/decode", "the proposal or commit is malformed")
	ErrUnsupported = errcode.New("mls/proposal/unsupported", "the proposal type is not supported")
)

// Type is RFC 9420 §12.1 ProposalType.
type Type uint16

// Proposal types (RFC 9420 §17.4).
const (
	TypeAdd                    Type = 1
	TypeUpdate                 Type = 2
	TypeRemove                 Type = 3
	TypePreSharedKey           Type = 4
	TypeReInit                 Type = 5
	TypeExternalInit           Type = 6
	TypeGroupContextExtensions Type = 7
)

func (t Type) String() string {
	switch t {
	case TypeAdd:
		return "add"
	case TypeUpdate:
		return "update"
	case TypeRemove:
		return "remove"
	case TypePreSharedKey:
		return "psk"
	case TypeReInit:
		return "reinit"
	case TypeExternalInit:
		return "external_init"
	case TypeGroupContextExtensions:
		return "group_context_extensions"
	}
	return fmt.Sprintf("proposal_type(%d)", uint16(t))
}

// Add is RFC 9420 §12.1.1.
type Add struct{ KeyPackage tree.KeyPackage }

// Update is RFC 9420 §12.1.2.
type Update struct{ LeafNode tree.LeafNode }

// Remove is RFC 9420 §12.1.3.
type Remove struct{ Removed uint32 }

// PreSharedKey is RFC 9420 §12.1.4.
type PreSharedKey struct{ PSK PreSharedKeyID }

// ReInit is RFC 9420 §12.1.5.
type ReInit struct {
	GroupID     []byte
	Version     uint16
	CipherSuite uint16
	Extensions  tree.Extensions
}

// ExternalInit is RFC 9420 §12.1.6.
type ExternalInit struct{ KEMOutput []byte }

// GroupContextExtensions is RFC 9420 §12.1.7.
type GroupContextExtensions struct{ Extensions tree.Extensions }

// Proposal is RFC 9420 §12.1 Proposal: exactly one of the pointers, the one
// matching Type, is set.
type Proposal struct {
	Type                   Type
	Add                    *Add
	Update                 *Update
	Remove                 *Remove
	PreSharedKey           *PreSharedKey
	ReInit                 *ReInit
	ExternalInit           *ExternalInit
	GroupContextExtensions *GroupContextExtensions
}

// Encode writes the proposal. A proposal whose body does not match its type
// writes only the type (and will not decode).
func (p *Proposal) Encode(w *codec.Writer) {
	w.U16(uint16(p.Type))
	p.encodeBody(w)
}

func (p *Proposal) encodeBody(w *codec.Writer) {
	switch {
	case p.Type == TypeAdd && p.Add != nil:
		p.Add.KeyPackage.Encode(w)
	case p.Type == TypeUpdate && p.Update != nil:
		p.Update.LeafNode.Encode(w)
	case p.Type == TypeRemove && p.Remove != nil:
		w.U32(p.Remove.Removed)
	case p.Type == TypePreSharedKey && p.PreSharedKey != nil:
		p.PreSharedKey.PSK.Encode(w)
	case p.Type == TypeReInit && p.ReInit != nil:
		p.ReInit.Encode(w)
	case p.Type == TypeExternalInit && p.ExternalInit != nil:
		w.Opaque(p.ExternalInit.KEMOutput)
	case p.Type == TypeGroupContextExtensions && p.GroupContextExtensions != nil:
		p.GroupContextExtensions.Extensions.Encode(w)
	}
}

// Encode writes the ReInit body.
func (ri *ReInit) Encode(w *codec.Writer) {
	w.Opaque(ri.GroupID)
	w.U16(ri.Version)
	w.U16(ri.CipherSuite)
	ri.Extensions.Encode(w)
}

// Decode reads the ReInit body.
func (ri *ReInit) Decode(r *codec.Reader) {
	ri.GroupID = r.OpaqueCopy()
	ri.Version = r.U16()
	ri.CipherSuite = r.U16()
	ri.Extensions = tree.DecodeExtensions(r)
}

// Decode reads a proposal; unknown proposal types cannot be parsed
// (their body has no length) and fail with ErrUnsupported.
func (p *Proposal) Decode(r *codec.Reader) {
	*p = Proposal{Type: Type(r.U16())}
	if r.Err() != nil {
		return
	}
	p.decodeBody(r)
}

func (p *Proposal) decodeBody(r *codec.Reader) {
	switch p.Type {
	case TypeAdd:
		p.Add = new(Add)
		p.Add.KeyPackage.Decode(r)
	case TypeUpdate:
		p.Update = new(Update)
		p.Update.LeafNode.Decode(r)
	case TypeRemove:
		p.Remove = &Remove{Removed: r.U32()}
	case TypePreSharedKey:
		p.PreSharedKey = new(PreSharedKey)
		p.PreSharedKey.PSK = keyschedule.DecodePreSharedKeyID(r)
	case TypeReInit:
		p.ReInit = new(ReInit)
		p.ReInit.Decode(r)
	case TypeExternalInit:
		p.ExternalInit = &ExternalInit{KEMOutput: r.OpaqueCopy()}
	case TypeGroupContextExtensions:
		p.GroupContextExtensions = &GroupContextExtensions{Extensions: tree.DecodeExtensions(r)}
	default:
		r.Fail(fmt.Errorf("%w: %v", ErrUnsupported, p.Type))
	}
}

// Bytes returns the encoding of the proposal.
func (p *Proposal) Bytes() []byte {
	w := codec.NewWriter(nil)
	p.Encode(w)
	return w.Bytes()
}

// Decode decodes exactly one Proposal from b.
func Decode(b []byte) (*Proposal, error) {
	r := codec.NewReader(b)
	p := new(Proposal)
	p.Decode(r)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	return p, nil
}

// DecodeBody decodes the body of a proposal of type t (Add, Update, ...
// without the proposal_type field), as the RFC 9420 "messages" test vectors
// carry them.
func DecodeBody(t Type, b []byte) (*Proposal, error) {
	r := codec.NewReader(b)
	p := &Proposal{Type: t}
	p.decodeBody(r)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: %v body: %w", ErrDecode, t, err)
	}
	return p, nil
}

// BodyBytes returns the encoding of the proposal's body without its type.
func (p *Proposal) BodyBytes() []byte {
	w := codec.NewWriter(nil)
	p.encodeBody(w)
	return w.Bytes()
}
