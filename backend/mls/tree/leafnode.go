package tree

import (
	"fmt"

	"weald/backend/internal/codec"
	"weald/backend/mls/treemath"
)

// LeafNodeSource is RFC 9420 §7.2 LeafNodeSource.
type LeafNodeSource uint8

// Leaf node sources.
const (
	SourceKeyPackage LeafNodeSource = 1
	SourceUpdate     LeafNodeSource = 2
	SourceCommit     LeafNodeSource = 3
)

// LeafNode is RFC 9420 §7.2 LeafNode. Treat it as immutable once it is in a
// [Tree]: build a new one to change it.
type LeafNode struct {
	EncryptionKey []byte
	SignatureKey  []byte
	Credential    Credential
	Capabilities  Capabilities
	Source        LeafNodeSource
	Lifetime      Lifetime // SourceKeyPackage only
	ParentHash    []byte   // SourceCommit only
	Extensions    Extensions
	Signature     []byte
}

// encodeContent writes every field before the signature.
func (l *LeafNode) encodeContent(w *codec.Writer) {
	w.Opaque(l.EncryptionKey)
	w.Opaque(l.SignatureKey)
	l.Credential.Encode(w)
	l.Capabilities.Encode(w)
	w.U8(uint8(l.Source))
	switch l.Source {
	case SourceKeyPackage:
		w.U64(l.Lifetime.NotBefore)
		w.U64(l.Lifetime.NotAfter)
	case SourceCommit:
		w.Opaque(l.ParentHash)
	}
	l.Extensions.Encode(w)
}

// Encode writes the leaf node.
func (l *LeafNode) Encode(w *codec.Writer) {
	l.encodeContent(w)
	w.Opaque(l.Signature)
}

// Bytes returns the encoding of the leaf node.
func (l *LeafNode) Bytes() []byte {
	w := codec.NewWriter(make([]byte, 0, 256))
	l.Encode(w)
	return w.Bytes()
}

// Decode reads a leaf node (syntax only).
func (l *LeafNode) Decode(r *codec.Reader) {
	*l = LeafNode{}
	l.EncryptionKey = r.OpaqueCopy()
	l.SignatureKey = r.OpaqueCopy()
	l.Credential.Decode(r)
	l.Capabilities.Decode(r)
	l.Source = LeafNodeSource(r.U8())
	switch l.Source {
	case SourceKeyPackage:
		l.Lifetime.NotBefore = r.U64()
		l.Lifetime.NotAfter = r.U64()
	case SourceUpdate:
	case SourceCommit:
		l.ParentHash = r.OpaqueCopy()
	default:
		if r.Err() == nil {
			r.Fail(fmt.Errorf("%w: leaf node source %d", ErrDecode, l.Source))
		}
	}
	l.Extensions = DecodeExtensions(r)
	l.Signature = r.OpaqueCopy()
}

// DecodeLeafNode decodes exactly one LeafNode from b.
func DecodeLeafNode(b []byte) (*LeafNode, error) {
	r := codec.NewReader(b)
	l := new(LeafNode)
	l.Decode(r)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: leaf node: %w", ErrDecode, err)
	}
	return l, nil
}

// tbs returns LeafNodeTBS (RFC 9420 §7.2): the content plus, for the update
// and commit sources, the group id and the leaf's index.
func (l *LeafNode) tbs(groupID []byte, leaf treemath.LeafIndex) []byte {
	w := codec.NewWriter(make([]byte, 0, 256))
	l.encodeContent(w)
	if l.Source == SourceUpdate || l.Source == SourceCommit {
		w.Opaque(groupID)
		w.U32(uint32(leaf))
	}
	return w.Bytes()
}

// Sign sets l.Signature with SignWithLabel(priv, "LeafNodeTBS", LeafNodeTBS).
// groupID and leaf are ignored for SourceKeyPackage.
func (l *LeafNode) Sign(s Suite, priv, groupID []byte, leaf treemath.LeafIndex) error {
	sig, err := s.SignWithLabel(priv, "LeafNodeTBS", l.tbs(groupID, leaf))
	if err != nil {
		return fmt.Errorf("sign leaf node: %w", err)
	}
	l.Signature = sig
	return nil
}

// VerifySignature checks the leaf node's signature under its own signature
// key. groupID and leaf are ignored for SourceKeyPackage.
func (l *LeafNode) VerifySignature(s Suite, groupID []byte, leaf treemath.LeafIndex) error {
	if !s.VerifyWithLabel(l.SignatureKey, "LeafNodeTBS", l.tbs(groupID, leaf), l.Signature) {
		return fmt.Errorf("%w: leaf node of leaf %d", ErrBadSignature, leaf)
	}
	return nil
}

// CredentialFunc authenticates a leaf (RFC 9420 §5.3.1): it returns nil if
// the leaf's credential, signature key and extensions are acceptable for a
// member of group groupID. existing is true for a leaf of a ratchet tree
// received on joining (Welcome, GroupInfo), which entered the group earlier,
// and false for a leaf entering it now (the key package of an Add, an
// Update, a commit's path leaf, an external joiner). The application's
// authentication service (the roster) plugs in here.
type CredentialFunc func(groupID []byte, l *LeafNode, existing bool) error

// LeafContext is what validating a leaf node (RFC 9420 §7.3) needs to know
// about the group and the moment.
type LeafContext struct {
	Suite Suite
	// GroupID and Leaf are the group and the position the leaf is (to be)
	// at; used in the signature for the update and commit sources.
	GroupID []byte
	Leaf    treemath.LeafIndex
	// Source is the required leaf node source; 0 accepts any.
	Source LeafNodeSource
	// Now is the current Unix time, checked against the lifetime of
	// key_package leaves; 0 skips the check (a tree received on join, whose
	// leaves may be old, RFC 9420 §7.3 note).
	Now uint64
	// Required is the group's required_capabilities, or nil.
	Required *RequiredCapabilities
	// GroupExtensions are the GroupContext extensions the leaf must support.
	GroupExtensions Extensions
	// Credential authenticates the leaf; nil accepts every leaf.
	Credential CredentialFunc
	// Existing marks a leaf of a tree received on joining (see
	// [CredentialFunc]).
	Existing bool
	// SkipSignature is set by callers that verified signatures already
	// (in parallel, see [Import]).
	SkipSignature bool
}

// Validate checks the leaf node on its own per RFC 9420 §7.3: credential,
// signature, required capabilities, support of the group's extensions, the
// cipher suite and version, the source, the lifetime, and that the leaf's
// own extensions are listed in its capabilities. Checks that need the whole
// tree (duplicate keys, credential types of other members) are done by
// [Tree.ValidateLeaf].
func (l *LeafNode) Validate(c *LeafContext) error {
	if c.Credential != nil {
		if err := c.Credential(c.GroupID, l, c.Existing); err != nil {
			return fmt.Errorf("%w: %w", ErrCredential, err)
		}
	}
	if c.Source != 0 && l.Source != c.Source {
		return fmt.Errorf("%w: have %d, want %d", ErrLeafSource, l.Source, c.Source)
	}
	if !c.SkipSignature {
		if err := l.VerifySignature(c.Suite, c.GroupID, c.Leaf); err != nil {
			return err
		}
	}
	// RFC 9420 §7.3 does not require the group's version and cipher suite
	// to be listed (and the official vectors of suite 7 do not list it), so
	// only credential types, required capabilities and extensions are checked.
	caps := &l.Capabilities
	if !caps.SupportsCredential(l.Credential.Type) {
		return fmt.Errorf("%w: own credential type %d not listed", ErrCapabilities, l.Credential.Type)
	}
	if rc := c.Required; rc != nil {
		for _, t := range rc.Extensions {
			if !caps.SupportsExtension(t) {
				return fmt.Errorf("%w: required extension %d", ErrCapabilities, t)
			}
		}
		for _, t := range rc.Proposals {
			if !caps.SupportsProposal(t) {
				return fmt.Errorf("%w: required proposal %d", ErrCapabilities, t)
			}
		}
		for _, t := range rc.Credentials {
			if !caps.SupportsCredential(t) {
				return fmt.Errorf("%w: required credential %d", ErrCapabilities, t)
			}
		}
	}
	for _, e := range c.GroupExtensions {
		if !caps.SupportsExtension(e.Type) {
			return fmt.Errorf("%w: group extension %d", ErrCapabilities, e.Type)
		}
	}
	if l.Source == SourceKeyPackage && c.Now != 0 && !l.Lifetime.Contains(c.Now) {
		return fmt.Errorf("%w: [%d, %d] at %d", ErrLifetime, l.Lifetime.NotBefore, l.Lifetime.NotAfter, c.Now)
	}
	for _, e := range l.Extensions {
		if !caps.SupportsExtension(e.Type) {
			return fmt.Errorf("%w: leaf extension %d", ErrExtensionSupported, e.Type)
		}
	}
	return nil
}
