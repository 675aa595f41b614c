package roster

import (
	"testing"

	"weald/backend/identity"
)

// TestRemovalReceipt: a receipt follows the revocation, is signed by an
// admin, names only revoked principals, and one operation has one receipt;
// a partial receipt needs an explicit channel.
func TestRemovalReceipt(t *testing.T) {
	w := bootstrapped(t)
	m := w.join(w.owner, RoleMember)
	other := w.join(w.owner, RoleMember)
	targets := w.st.RemovalTargets(m.user)
	body := &RemovalReceipt{Operation: [32]byte{7}, User: m.user, Revoked: targets,
		Groups: []RotatedGroup{{Group: w.st.RootGroup(), Epoch: 3}}, AccessVersion: 4}
	// Before the revocation: refused.
	w.fail(w.owner.signer(), body, ErrBadOperation)
	w.must(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: targets})
	// A member may not write it.
	w.fail(other.signer(), body, ErrNotAuthorized)
	// A principal not revoked: refused.
	bad := *body
	bad.Revoked = append([]identity.Principal{other.p()}, targets...)
	w.fail(w.owner.signer(), &bad, ErrBadOperation)
	w.must(w.owner.signer(), body)
	r, ok := w.st.Receipt(body.Operation)
	if !ok || r.By != w.owner.id() || len(r.Receipt.Revoked) != len(targets) || r.Receipt.AccessVersion != 4 {
		t.Fatalf("receipt %+v %v", r, ok)
	}
	// The same operation cannot have a second receipt.
	w.fail(w.owner.signer(), body, ErrDuplicate)
	// Partial: explicit channel only, nothing revoked, no access set.
	open := w.channel(w.owner, AdmissionParent, "open")
	expl := w.channel(w.owner, AdmissionExplicit, "explicit")
	w.fail(w.owner.signer(), &RemovalReceipt{Operation: [32]byte{8}, User: other.user, Channel: open}, ErrBadOperation)
	w.fail(w.owner.signer(), &RemovalReceipt{Operation: [32]byte{8}, User: other.user, Channel: expl, AccessVersion: 2}, ErrBadOperation)
	w.must(w.owner.signer(), &RemovalReceipt{Operation: [32]byte{8}, User: other.user, Channel: expl,
		Groups: []RotatedGroup{{Group: expl, Epoch: 2}}})
	if got := w.st.Receipts(); len(got) != 2 || got[0].Receipt.Operation != body.Operation {
		t.Fatalf("receipts %+v", got)
	}
	// The chain with its receipts folds to the same state from bytes.
	st, err := Validate(w.ops, Options{})
	if err != nil || len(st.Receipts()) != 2 {
		t.Fatalf("validate: %v", err)
	}
}
