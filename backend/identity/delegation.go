package identity

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"weald/backend/errcode"
	"weald/backend/internal/codec"
)

// Limits on delegation certificates.
const (
	MaxDelegationDepth = 4   // certificates in one chain, the root one included
	MaxDelegationScope = 512 // groups in scope (the per-workspace group limit)
)

// Delegation certificate errors, checked with errors.Is.
var (
	ErrCertScope      = errcode.New("identity/cert_scope", "a sub-delegation names a group its parent certificate does not")
	ErrCertWindow     = errcode.New("identity/cert_window", "a sub-delegation is valid outside its parent certificate's window")
	ErrCertNotYet     = errcode.New("identity/cert_not_yet_valid", "the delegation certificate is not valid yet")
	ErrCertExpired    = errcode.New("identity/cert_expired", "the delegation certificate has expired")
	ErrCertIssuer     = errcode.New("identity/cert_issuer", "the certificate chain does not name one issuing device")
	ErrCertUnknown    = errcode.New("identity/cert_unknown_device", "the issuing device is unknown")
	ErrCertMalformed  = errcode.New("identity/cert_malformed", "the delegation certificate is malformed")
	ErrCertDepth      = errcode.New("identity/cert_depth", "the delegation chain is too long")
	ErrCertEmptyScope = errcode.New("identity/cert_empty_scope", "a delegation certificate must name at least one group")
)

// DelegationCertificate admits an agent key for a scope of groups and a time
// window (gaps.md "Agents"). A root certificate is signed by IssuingDevice; a
// sub-delegation carries its Parent and is signed by the parent's agent key,
// and its scope and window can only shrink.
//
//	struct {
//	  opaque agent_pub[32];
//	  opaque issuing_device[32];        // device_id at the root of the chain
//	  GroupID scope<V>;                 // strictly ascending, at least one
//	  uint64 not_before; uint64 expiry; // unix milliseconds, not_before < expiry
//	  optional<DelegationCertificate> parent;
//	} DelegationTBS;
//	struct { DelegationTBS tbs; opaque signature<V>; } DelegationCertificate;
//
// The signature uses label "delegation" over DelegationTBS.
type DelegationCertificate struct {
	Agent         AgentPublic
	IssuingDevice DeviceID
	Scope         []GroupID // sorted ascending, unique
	NotBefore     time.Time
	Expiry        time.Time
	Parent        *DelegationCertificate
	Signature     []byte
}

// IssueDelegation signs a root certificate with the issuing device's key.
func IssueDelegation(issuer DevicePrivate, agent AgentPublic, scope []GroupID, notBefore, expiry time.Time) (*DelegationCertificate, error) {
	c := &DelegationCertificate{Agent: agent, IssuingDevice: DeviceIDOf(issuer.Public()),
		Scope: normScope(scope), NotBefore: notBefore, Expiry: expiry}
	if err := c.checkShape(); err != nil {
		return nil, err
	}
	tbs, err := c.tbs()
	if err != nil {
		return nil, err
	}
	if c.Signature, err = issuer.Sign(LabelDelegation, tbs); err != nil {
		return nil, err
	}
	return c, nil
}

// SubDelegate signs a sub-delegation with parentAgent, the agent key parent
// certifies. Scope and window must lie inside parent's.
func SubDelegate(parentAgent AgentPrivate, parent *DelegationCertificate, agent AgentPublic, scope []GroupID, notBefore, expiry time.Time) (*DelegationCertificate, error) {
	if parent == nil || !parent.Agent.Equal(parentAgent.Public()) {
		return nil, fmt.Errorf("%w: the signing agent is not the parent certificate's agent", ErrCertIssuer)
	}
	c := &DelegationCertificate{Agent: agent, IssuingDevice: parent.IssuingDevice, Scope: normScope(scope),
		NotBefore: notBefore, Expiry: expiry, Parent: parent}
	if err := c.checkShape(); err != nil {
		return nil, err
	}
	tbs, err := c.tbs()
	if err != nil {
		return nil, err
	}
	if c.Signature, err = parentAgent.Sign(LabelDelegation, tbs); err != nil {
		return nil, err
	}
	return c, nil
}

func normScope(s []GroupID) []GroupID {
	out := slices.Clone(s)
	slices.SortFunc(out, func(a, b GroupID) int { return bytes.Compare(a[:], b[:]) })
	return slices.Compact(out)
}

// AgentID returns the certified agent's id.
func (c *DelegationCertificate) AgentID() AgentID { return AgentIDOf(c.Agent) }

// InScope reports whether g is in the certificate's scope.
func (c *DelegationCertificate) InScope(g GroupID) bool {
	_, ok := slices.BinarySearchFunc(c.Scope, g, func(a, b GroupID) int { return bytes.Compare(a[:], b[:]) })
	return ok
}

// Chain returns the certificates from the root one to c.
func (c *DelegationCertificate) Chain() []*DelegationCertificate {
	var out []*DelegationCertificate
	for x := c; x != nil; x = x.Parent {
		out = append(out, x)
	}
	slices.Reverse(out)
	return out
}

// checkShape checks everything but signatures and the clock.
func (c *DelegationCertificate) checkShape() error {
	depth := 0
	for x := c; x != nil; x = x.Parent {
		depth++
		if depth > MaxDelegationDepth {
			return ErrCertDepth
		}
		if x.Agent.IsZero() {
			return fmt.Errorf("%w: no agent key", ErrCertMalformed)
		}
		if len(x.Scope) == 0 {
			return ErrCertEmptyScope
		}
		if len(x.Scope) > MaxDelegationScope {
			return fmt.Errorf("%w: %d groups in scope, at most %d", ErrCertMalformed, len(x.Scope), MaxDelegationScope)
		}
		for i := 1; i < len(x.Scope); i++ {
			if bytes.Compare(x.Scope[i-1][:], x.Scope[i][:]) >= 0 {
				return fmt.Errorf("%w: scope is not strictly ascending", ErrCertMalformed)
			}
		}
		if !x.NotBefore.Before(x.Expiry) {
			return fmt.Errorf("%w: not_before is not before expiry", ErrCertMalformed)
		}
		if p := x.Parent; p != nil {
			if p.IssuingDevice != x.IssuingDevice {
				return ErrCertIssuer
			}
			for _, g := range x.Scope {
				if !p.InScope(g) {
					return fmt.Errorf("%w (%s)", ErrCertScope, g.ShortString())
				}
			}
			if x.NotBefore.Before(p.NotBefore) || x.Expiry.After(p.Expiry) {
				return ErrCertWindow
			}
		}
	}
	return nil
}

// Verify checks the whole chain: shape (scope only shrinks, windows nest),
// every signature (the root one by the issuing device's key from
// deviceKey), and that clock's now lies in every certificate's window. It
// does not know about revocation; backend/roster checks that.
func (c *DelegationCertificate) Verify(deviceKey func(DeviceID) (DevicePublic, bool), clock Clock) error {
	return c.VerifyAt(deviceKey, clock.Now())
}

// VerifyAt is Verify at an explicit time (roster validation uses the
// operation's own timestamp).
func (c *DelegationCertificate) VerifyAt(deviceKey func(DeviceID) (DevicePublic, bool), now time.Time) error {
	if err := c.checkShape(); err != nil {
		return err
	}
	for x := c; x != nil; x = x.Parent {
		tbs, err := x.tbs()
		if err != nil {
			return err
		}
		if x.Parent != nil {
			if err := x.Parent.Agent.Verify(LabelDelegation, tbs, x.Signature); err != nil {
				return err
			}
		} else {
			dev, ok := deviceKey(x.IssuingDevice)
			if !ok || DeviceIDOf(dev) != x.IssuingDevice {
				return fmt.Errorf("%w (%s)", ErrCertUnknown, x.IssuingDevice.ShortString())
			}
			if err := dev.Verify(LabelDelegation, tbs, x.Signature); err != nil {
				return err
			}
		}
		if now.Before(x.NotBefore) {
			return fmt.Errorf("%w (from %s)", ErrCertNotYet, x.NotBefore.Format(time.RFC3339))
		}
		if !now.Before(x.Expiry) {
			return fmt.Errorf("%w (at %s)", ErrCertExpired, x.Expiry.Format(time.RFC3339))
		}
	}
	return nil
}

func (c *DelegationCertificate) encodeTBS(w *codec.Writer) {
	w.Raw(c.Agent.k[:])
	w.Raw(c.IssuingDevice[:])
	w.Vector(func(w *codec.Writer) {
		for _, g := range c.Scope {
			w.Raw(g[:])
		}
	})
	w.U64(UnixMilli(c.NotBefore))
	w.U64(UnixMilli(c.Expiry))
	w.Bool(c.Parent != nil)
	if c.Parent != nil {
		c.Parent.EncodeTo(w)
	}
}

func (c *DelegationCertificate) tbs() ([]byte, error) {
	var w codec.Writer
	c.encodeTBS(&w)
	return w.Bytes(), w.Err()
}

// EncodeTo appends the certificate's canonical encoding to w.
func (c *DelegationCertificate) EncodeTo(w *codec.Writer) {
	c.encodeTBS(w)
	w.Opaque(c.Signature)
}

// Encode returns the canonical encoding.
func (c *DelegationCertificate) Encode() ([]byte, error) {
	var w codec.Writer
	c.EncodeTo(&w)
	return w.Bytes(), w.Err()
}

// DecodeDelegationFrom reads one certificate (with its parents) from r. It
// checks the encoding and shape, not signatures or time.
func DecodeDelegationFrom(r *codec.Reader) *DelegationCertificate {
	return decodeDelegation(r, 1)
}

func decodeDelegation(r *codec.Reader, depth int) *DelegationCertificate {
	if depth > MaxDelegationDepth {
		r.Fail(ErrCertDepth)
		return nil
	}
	c := &DelegationCertificate{}
	c.Agent, _ = PublicFromBytes[Agent](r.Raw(32))
	c.IssuingDevice = r.Array32()
	r.VectorMax(MaxDelegationScope, func(r *codec.Reader) {
		c.Scope = append(c.Scope, GroupID(r.Array32()))
	})
	c.NotBefore = ReadTime(r)
	c.Expiry = ReadTime(r)
	if r.Bool() {
		c.Parent = decodeDelegation(r, depth+1)
	}
	c.Signature = r.OpaqueMax(64)
	if r.Err() != nil {
		return nil
	}
	if depth == 1 {
		if err := c.checkShape(); err != nil {
			r.Fail(err)
			return nil
		}
	}
	return c
}

// DecodeDelegation decodes a whole byte string as one certificate.
func DecodeDelegation(b []byte) (*DelegationCertificate, error) {
	r := codec.NewReader(b)
	c := DecodeDelegationFrom(r)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("decode delegation certificate: %w", err)
	}
	return c, nil
}
