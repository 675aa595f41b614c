package tree

import (
	"fmt"

	"weald/backend/internal/codec"
)

// CredentialType is RFC 9420 §5.3 CredentialType.
type CredentialType uint16

// Credential types (RFC 9420 §17.5).
const (
	CredentialBasic CredentialType = 1
	CredentialX509  CredentialType = 2
)

// Credential is RFC 9420 §5.3 Credential: a basic identity, or an X.509
// chain carried as opaque DER certificates (not interpreted here: the
// caller's credential callback judges it).
type Credential struct {
	Type         CredentialType
	Identity     []byte   // basic
	Certificates [][]byte // x509, leaf first
}

// BasicCredential returns a basic credential for identity.
func BasicCredential(identity []byte) Credential {
	return Credential{Type: CredentialBasic, Identity: identity}
}

// Encode writes the credential.
func (c *Credential) Encode(w *codec.Writer) {
	w.U16(uint16(c.Type))
	switch c.Type {
	case CredentialBasic:
		w.Opaque(c.Identity)
	case CredentialX509:
		w.Vector(func(w *codec.Writer) {
			for _, cert := range c.Certificates {
				w.Opaque(cert)
			}
		})
	}
}

// Decode reads a credential; unknown types cannot be parsed and fail.
func (c *Credential) Decode(r *codec.Reader) {
	*c = Credential{Type: CredentialType(r.U16())}
	switch c.Type {
	case CredentialBasic:
		c.Identity = r.OpaqueCopy()
		if c.Identity == nil {
			c.Identity = []byte{}
		}
	case CredentialX509:
		c.Certificates = [][]byte{}
		r.Vector(func(r *codec.Reader) {
			c.Certificates = append(c.Certificates, r.OpaqueCopy())
		})
	default:
		if r.Err() == nil {
			r.Fail(fmt.Errorf("%w: credential type %d", ErrUnsupported, c.Type))
		}
	}
}

// ExtensionType is RFC 9420 §13 ExtensionType.
type ExtensionType uint16

// Extension types (RFC 9420 §17.3).
const (
	ExtApplicationID        ExtensionType = 1
	ExtRatchetTree          ExtensionType = 2
	ExtRequiredCapabilities ExtensionType = 3
	ExtExternalPub          ExtensionType = 4
	ExtExternalSenders      ExtensionType = 5
	// ExtLastResort is the last_resort KeyPackage extension
	// (draft-ietf-mls-extensions, registered value 0x000a).
	ExtLastResort ExtensionType = 0x000a
)

// IsDefaultExtension reports whether t is one of the extensions of RFC 9420
// §7.2 that every client supports and that capabilities need not list.
func IsDefaultExtension(t ExtensionType) bool { return t >= 1 && t <= 5 }

// Extension is RFC 9420 §7.2 Extension.
type Extension struct {
	Type ExtensionType
	Data []byte
}

// Extensions is an Extension list (Extension extensions<V>).
type Extensions []Extension

// Find returns the data of the extension of type t.
func (e Extensions) Find(t ExtensionType) ([]byte, bool) {
	for _, x := range e {
		if x.Type == t {
			return x.Data, true
		}
	}
	return nil, false
}

// Encode writes the list.
func (e Extensions) Encode(w *codec.Writer) {
	w.Vector(func(w *codec.Writer) {
		for _, x := range e {
			w.U16(uint16(x.Type))
			w.Opaque(x.Data)
		}
	})
}

// DecodeExtensions reads an extension list, rejecting a type that appears
// twice (RFC 9420 §13.4).
func DecodeExtensions(r *codec.Reader) Extensions {
	var e Extensions
	r.Vector(func(r *codec.Reader) {
		x := Extension{Type: ExtensionType(r.U16()), Data: r.OpaqueCopy()}
		if x.Data == nil {
			x.Data = []byte{}
		}
		if _, dup := e.Find(x.Type); dup && r.Err() == nil {
			r.Fail(fmt.Errorf("%w: extension type %d appears twice", ErrDecode, x.Type))
		}
		e = append(e, x)
	})
	return e
}

// Capabilities is RFC 9420 §7.2 Capabilities.
type Capabilities struct {
	Versions     []uint16
	CipherSuites []uint16
	Extensions   []ExtensionType
	Proposals    []uint16
	Credentials  []CredentialType
}

func writeU16s[T ~uint16](w *codec.Writer, v []T) {
	w.Vector(func(w *codec.Writer) {
		for _, x := range v {
			w.U16(uint16(x))
		}
	})
}

func readU16s[T ~uint16](r *codec.Reader) []T {
	v := []T{}
	r.Vector(func(r *codec.Reader) { v = append(v, T(r.U16())) })
	return v
}

// Encode writes the capabilities.
func (c *Capabilities) Encode(w *codec.Writer) {
	writeU16s(w, c.Versions)
	writeU16s(w, c.CipherSuites)
	writeU16s(w, c.Extensions)
	writeU16s(w, c.Proposals)
	writeU16s(w, c.Credentials)
}

// Decode reads capabilities.
func (c *Capabilities) Decode(r *codec.Reader) {
	c.Versions = readU16s[uint16](r)
	c.CipherSuites = readU16s[uint16](r)
	c.Extensions = readU16s[ExtensionType](r)
	c.Proposals = readU16s[uint16](r)
	c.Credentials = readU16s[CredentialType](r)
}

func contains[T comparable](v []T, x T) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

// SupportsExtension reports whether the capabilities cover extension t
// (default extensions are always supported).
func (c *Capabilities) SupportsExtension(t ExtensionType) bool {
	return IsDefaultExtension(t) || contains(c.Extensions, t)
}

// SupportsProposal reports whether the capabilities cover proposal type t
// (the RFC 9420 default proposal types 1..7 are always supported).
func (c *Capabilities) SupportsProposal(t uint16) bool {
	return (t >= 1 && t <= 7) || contains(c.Proposals, t)
}

// SupportsCredential reports whether credential type t is listed.
func (c *Capabilities) SupportsCredential(t CredentialType) bool {
	return contains(c.Credentials, t)
}

// RequiredCapabilities is the required_capabilities extension (RFC 9420 §11.1).
type RequiredCapabilities struct {
	Extensions  []ExtensionType
	Proposals   []uint16
	Credentials []CredentialType
}

// Encode writes the extension body.
func (rc *RequiredCapabilities) Encode(w *codec.Writer) {
	writeU16s(w, rc.Extensions)
	writeU16s(w, rc.Proposals)
	writeU16s(w, rc.Credentials)
}

// DecodeRequiredCapabilities decodes a required_capabilities body.
func DecodeRequiredCapabilities(b []byte) (*RequiredCapabilities, error) {
	r := codec.NewReader(b)
	rc := &RequiredCapabilities{
		Extensions:  readU16s[ExtensionType](r),
		Proposals:   readU16s[uint16](r),
		Credentials: readU16s[CredentialType](r),
	}
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: required_capabilities: %w", ErrDecode, err)
	}
	return rc, nil
}

// Lifetime is RFC 9420 §7.2 Lifetime, in seconds since the Unix epoch.
type Lifetime struct {
	NotBefore, NotAfter uint64
}

// Contains reports whether unix time t lies within the lifetime.
func (l Lifetime) Contains(t uint64) bool { return l.NotBefore <= t && t <= l.NotAfter }
