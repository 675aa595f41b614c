package engine

import (
	"fmt"

	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/mls"
	"weald/backend/mls/tree"
)

// authLeaf is the engine's mls.Config.Credential: every leaf that enters a
// group, or is in a tree this client imports on joining, is judged against
// the roster as this client holds it (groups.AuthenticateLeaf;
// docs/protocol/groups.md "Leaf binding").
func (e *Engine) authLeaf(groupID []byte, l *tree.LeafNode, existing bool) error {
	if len(groupID) != 32 {
		return fmt.Errorf("%w: a group id of %d bytes", groups.ErrUnboundLeaf, len(groupID))
	}
	return groups.AuthenticateLeaf(e.roster, identity.GroupID(groupID), l, existing, e.now())
}

// boundLeafKey draws a leaf signature key of suite and binds it to this
// device: the key pair and the leaf extensions that carry the binding.
func (e *Engine) boundLeafKey(suite uint16) (priv, pub []byte, exts tree.Extensions, err error) {
	priv, pub, err = mls.GenerateSignatureKey(e.mlsCfg, suite)
	if err != nil {
		return nil, nil, nil, err
	}
	if e.agentMode() {
		exts, err = groups.LeafExtensions(e.agentKey, e.wsID(), identity.AgentPrincipal(e.agentID()), pub)
	} else {
		exts, err = groups.LeafExtensions(e.dev, e.wsID(), identity.DevicePrincipal(e.devID), pub)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return priv, pub, exts, nil
}

// newKeyPackage makes a key package whose leaf is bound to this device.
func (e *Engine) newKeyPackage() (*mls.KeyPackageBundle, error) {
	priv, _, exts, err := e.boundLeafKey(suiteID)
	if err != nil {
		return nil, err
	}
	return mls.GenerateKeyPackageWith(e.mlsCfg, suiteID, e.credential(),
		mls.KeyPackageOptions{SignatureKey: priv, LeafExtensions: exts})
}

// newGroup creates a one-member MLS group with this device's bound leaf.
func (e *Engine) newGroup(id identity.GroupID) (*mls.Group, error) {
	kp, err := e.newKeyPackage()
	if err != nil {
		return nil, err
	}
	return mls.NewGroupFromKeyPackage(e.mlsCfg, id[:], kp)
}
