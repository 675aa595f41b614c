package roster

import (
	"testing"
	"weald/backend/identity"
)

func TestSetName(t *testing.T) {
	w := bootstrapped(t)
	dana := w.join(w.owner, RoleMember)
	sam := w.join(w.owner, RoleMember)

	// The user's own device names it, and can rename it later.
	w.must(dana.signer(), &SetName{User: dana.user, Name: "Dana"})
	if u, _ := w.st.User(dana.user); u.Name != "Dana" {
		t.Fatalf("name %q, want Dana", u.Name)
	}
	w.must(dana.signer(), &SetName{User: dana.user, Name: "Dana Scully"})
	// An admin may rename anyone (moderation); a member only themselves.
	w.must(w.owner.signer(), &SetName{User: sam.user, Name: "Sam"})
	w.fail(sam.signer(), &SetName{User: dana.user, Name: "Mallory"}, ErrNotAuthorized)

	w.fail(sam.signer(), &SetName{User: sam.user, Name: ""}, ErrBadName)
	w.fail(sam.signer(), &SetName{User: sam.user, Name: " Sam"}, ErrBadName)
	w.fail(sam.signer(), &SetName{User: sam.user, Name: "Sam\x07"}, ErrBadName)
	w.fail(sam.signer(), &SetName{User: sam.user, Name: "Sam"}, ErrBadOperation) // a no-op
	w.fail(w.owner.signer(), &SetName{User: w.newMember().user, Name: "Nobody"}, ErrUnknownPrincipal)

	// Names need not be unique; the lookup returns every holder.
	w.must(w.owner.signer(), &SetName{User: w.owner.user, Name: "sam"})
	if got := w.st.UsersNamed(" SAM "); len(got) != 2 || got[0].ID != w.owner.user || got[1].ID != sam.user {
		t.Fatalf("UsersNamed(SAM) = %v, want owner then sam", got)
	}
	// A revoked user is not found by name and cannot be renamed.
	w.must(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{sam.up()}})
	if got := w.st.UsersNamed("sam"); len(got) != 1 {
		t.Fatalf("UsersNamed(sam) after revoking Sam = %d users, want 1", len(got))
	}
	w.fail(w.owner.signer(), &SetName{User: sam.user, Name: "Samuel"}, ErrAlreadyRevoked)

	// The fold from bytes reaches the same names.
	fresh, err := Validate(w.ops, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := fresh.User(dana.user); u.Name != "Dana Scully" {
		t.Fatalf("refolded name %q", u.Name)
	}
}
