package roster_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"weald/backend/identity"
	"weald/backend/roster"
)

// Example walks the first-message path's roster half: bootstrap, an
// invite, its redemption on another machine, and the joiner's self-join set.
func Example() {
	rnd := rand.NewChaCha8([32]byte{7})
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	tick := func() time.Time { now = now.Add(time.Second); return now }

	ws, _ := identity.NewRandomID[identity.Workspace](rnd)
	gen, _ := identity.GenerateKey[identity.Genesis](rnd) // recorded at provisioning
	owner, _ := identity.GenerateKey[identity.Device](rnd)
	ownerUser, _ := identity.NewRandomID[identity.User](rnd)

	var chain [][]byte // what the relay stores
	st := roster.New(roster.Options{})
	appendOp := func(s roster.Signer, b roster.Body) {
		op, err := roster.Sign(s, st.Head(), tick(), b)
		if err == nil {
			err = st.Apply(op)
		}
		if err != nil {
			panic(err)
		}
		chain = append(chain, op.Bytes())
	}

	g, _ := roster.NewGenesis(ws, ownerUser, owner.Public(), gen)
	appendOp(roster.DeviceSigner(owner), g)
	for _, b := range roster.BootstrapGroups(st, "Acme") {
		appendOp(roster.DeviceSigner(owner), b)
	}
	design, _ := roster.NewChannel(rnd, st, "design", roster.AdmissionParent)
	appendOp(roster.DeviceSigner(owner), design)
	inv, secret, _ := roster.NewInvite(rnd, st, []identity.GroupID{roster.GeneralGroupID(ws)}, roster.RoleMember, now.Add(24*time.Hour), make([]byte, 32), 1)
	appendOp(roster.DeviceSigner(owner), inv)

	// Another machine: fold the chain, redeem with the link's secret.
	st, err := roster.Validate(chain, roster.Options{Genesis: ptr(gen.Public()), GenesisHead: ptr(roster.HeadOf(chain[0]))})
	if err != nil {
		panic(err)
	}
	joiner, _ := identity.GenerateKey[identity.Device](rnd)
	joinerUser, _ := identity.NewRandomID[identity.User](rnd)
	rb, _ := roster.NewRedemption(ws, st.Head(), inv.ID, secret, joinerUser, joiner.Public())
	appendOp(roster.DeviceSigner(joiner), rb)

	jid := identity.DeviceIDOf(joiner.Public())
	inRoot := func(g identity.GroupID) bool { return g == st.RootGroup() }
	for _, g := range st.SelfJoinGroups(jid, inRoot) {
		info, _ := st.Group(g)
		fmt.Println("self-join", info.Name, info.Policy.Admission, info.Policy.History)
	}
	fmt.Println("operations", st.Len(), "live admins", st.LiveAdmins())
	// Output:
	// self-join general parent open
	// self-join activity parent open
	// self-join design parent open
	// operations 7 live admins 1
}

func ptr[T any](v T) *T { return &v }
