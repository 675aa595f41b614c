package groups

import (
	"fmt"
	"time"

	"weald/backend/identity"
	"weald/backend/mls/tree"
	"weald/backend/roster"
)

// ExtLeafBinding is the leaf extension that carries an
// identity.LeafBinding (RFC 9420 §17.3 private-use range;
// docs/protocol/groups.md "Leaf binding").
const ExtLeafBinding tree.ExtensionType = 0xF0A1

// LeafExtensions returns the leaf extensions that bind the MLS signature
// key leafKey to principal p (a device or an agent) whose roster key is
// priv, in workspace ws.
func LeafExtensions[K identity.KeyKind](priv identity.PrivateKey[K], ws identity.WorkspaceID, p identity.Principal, leafKey []byte) (tree.Extensions, error) {
	b, err := identity.SignLeafBinding(priv, ws, p, leafKey)
	if err != nil {
		return nil, err
	}
	return tree.Extensions{{Type: ExtLeafBinding, Data: b.Encode()}}, nil
}

// CheckAgentAdds checks the adder of agent leaves (spec/channels.md "The
// join", the agent path): each added leaf whose credential names an agent
// must be added by the device that issued the agent's certificate chain,
// live, with the certificate naming group at now (roster.CheckAgentAdd).
// added are the credential identities of the leaves a commit adds, adder
// the committer's. The error wraps ErrUnboundLeaf.
func CheckAgentAdds(st *roster.State, group identity.GroupID, adder []byte, added [][]byte, now time.Time) error {
	for _, id := range added {
		if len(id) != 32 {
			continue // AuthenticateLeaf refuses it
		}
		a := identity.AgentID(id)
		if _, ok := st.Agent(a); !ok {
			continue
		}
		if len(adder) != 32 {
			return fmt.Errorf("%w: agent %s added by a leaf that is not a device", ErrUnboundLeaf, a.ShortString())
		}
		if err := st.CheckAgentAdd(identity.DeviceID(adder), a, group, now); err != nil {
			return fmt.Errorf("%w: agent %s added by %s: %v", ErrUnboundLeaf, a.ShortString(), identity.DeviceID(adder).ShortString(), err)
		}
	}
	return nil
}

// AuthenticateLeaf is the one authentication hook of every Weald MLS group
// (RFC 9420 §5.3.1; mls.Config.Credential): a leaf's basic credential names
// a device or agent of the roster, and its ExtLeafBinding extension is that
// principal's roster-key signature over the leaf's signature key. A leaf
// entering group (an Add's key package, an Update, a commit's path leaf,
// an external joiner) must name a live device, or an agent whose live
// certificate at now names group. A leaf of a tree received on joining
// (existing) must be bound the same way to a principal the roster holds,
// revoked or not: removing revoked leaves is the removal's work, and a
// group still holding one stays joinable. The error wraps ErrUnboundLeaf.
func AuthenticateLeaf(st *roster.State, group identity.GroupID, l *tree.LeafNode, existing bool, now time.Time) error {
	unbound := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrUnboundLeaf, fmt.Sprintf(format, a...))
	}
	if st == nil {
		return unbound("no roster is loaded")
	}
	if l.Credential.Type != tree.CredentialBasic || len(l.Credential.Identity) != 32 {
		return unbound("the leaf's credential is not a basic credential holding a 32-byte principal id")
	}
	id := [32]byte(l.Credential.Identity)
	ext, ok := l.Extensions.Find(ExtLeafBinding)
	if !ok {
		return unbound("the leaf of %s carries no binding to its roster key", identity.DeviceID(id).ShortString())
	}
	b, err := identity.DecodeLeafBinding(ext)
	if err != nil {
		return unbound("%v", err)
	}
	ws := st.Workspace()
	switch b.Kind {
	case identity.KindDevice:
		d := identity.DeviceID(id)
		dev, ok := st.Device(d)
		if !ok {
			return unbound("device %s is not in the roster", d.ShortString())
		}
		if err := b.Verify(dev.Public.Verify, ws, identity.DevicePrincipal(d), l.SignatureKey); err != nil {
			return unbound("the leaf of %s is not bound by its roster key (%v)", d.ShortString(), err)
		}
		if !existing && !st.DeviceLive(d) {
			return unbound("device %s is revoked", d.ShortString())
		}
	case identity.KindAgent:
		a := identity.AgentID(id)
		ag, ok := st.Agent(a)
		if !ok {
			return unbound("agent %s is not in the roster", a.ShortString())
		}
		if err := b.Verify(ag.Cert.Agent.Verify, ws, identity.AgentPrincipal(a), l.SignatureKey); err != nil {
			return unbound("the leaf of %s is not bound by its roster key (%v)", a.ShortString(), err)
		}
		if !existing && (!st.AgentLive(a, now) || !ag.Cert.InScope(group)) {
			return unbound("agent %s has no live certificate naming group %s", a.ShortString(), group.ShortString())
		}
	}
	return nil
}
