package engine

import (
	"strings"
	"testing"
	"time"

	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/mls"
	"weald/backend/mls/tree"
	"weald/backend/roster"
	"weald/backend/wire"
)

// forgeJoin makes an external commit into channel from e's client with a
// chosen credential identity, join data and leaf extensions (tamper may
// change all three and re-sign with the given device key), bypassing e's
// own entitlement check.
func forgeJoin(t *testing.T, e *Engine, channel string, tamper func(epoch uint64, leafKey []byte) (ident []byte, jd *groups.JoinData, exts tree.Extensions)) uint64 {
	t.Helper()
	ctx := testCtx(t)
	e.mu.Lock()
	defer e.mu.Unlock()
	gi, err := e.resolveChannel(channel)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []identity.GroupID{e.roster.RootGroup(), gi.Policy.Group} {
		if err := e.catchUp(ctx, e.groups[id]); err != nil {
			t.Fatal(err)
		}
	}
	b, err := e.latestBundles(ctx, gi.Policy.Group)
	if err != nil || b.info == nil {
		t.Fatalf("bundles: %v", err)
	}
	gip, err := groups.DecodeGroupInfoPlain(b.info.plain)
	if err != nil {
		t.Fatal(err)
	}
	info, err := decodeGroupInfo(gip.GroupInfo)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &mls.Config{Rand: seededRand(99)}
	priv, pub, err := mls.GenerateSignatureKey(cfg, info.GroupContext.CipherSuite)
	if err != nil {
		t.Fatal(err)
	}
	epoch := info.GroupContext.Epoch + 1
	ident, jd, exts := tamper(epoch, pub)
	_, msg, err := mls.ExternalJoin(cfg, gip.GroupInfo, nil, tree.BasicCredential(ident),
		mls.ExternalJoinOptions{AuthenticatedData: jd.Encode(), SignatureKey: priv, LeafExtensions: exts})
	if err != nil {
		t.Fatal(err)
	}
	g := e.groupState(gi.Policy.Group)
	if _, err := e.sendCT(ctx, g, wire.KindMLSCommit, msg); err != nil {
		t.Fatal(err)
	}
	return epoch
}

func TestForgedJoinsAreEvicted(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 40)
	link1, err := dana.CreateInvite(ctx, []string{"general"}, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	sam := joinWith(t, r, link1, "sam", 41)
	lee := inviteAndJoin(t, r, dana, "lee", 42)
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}

	// bind binds leafKey to sam's device, as sam's own client does.
	bind := func(leafKey []byte) tree.Extensions {
		exts, err := groups.LeafExtensions(sam.dev, sam.wsID(), identity.DevicePrincipal(sam.devID), leafKey)
		if err != nil {
			t.Fatal(err)
		}
		return exts
	}
	// A leaf the roster does not bind is refused outright (leaf/unbound:
	// never merged); a bound leaf whose join breaks the group's policy is
	// merged and evicted within one epoch (join/forged).
	cases := []struct {
		name   string
		code   string
		before func()
		tamper func(epoch uint64, leafKey []byte) ([]byte, *groups.JoinData, tree.Extensions)
	}{
		{"key not in roster", "leaf/unbound", nil, func(epoch uint64, leafKey []byte) ([]byte, *groups.JoinData, tree.Extensions) {
			stranger, _ := identity.GenerateKey[identity.Device](seededRand(77))
			id := identity.DeviceIDOf(stranger.Public())
			gi, _ := sam.roster.Group(roster.GeneralGroupID(sam.wsID()))
			jd, err := groups.NewJoinData(stranger, roster.Ref{}, groups.PathSelfJoin, &gi.Policy, [32]byte(gi.Policy.Group), epoch, leafKey, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			exts, err := groups.LeafExtensions(stranger, sam.wsID(), identity.DevicePrincipal(id), leafKey)
			if err != nil {
				t.Fatal(err)
			}
			return id[:], jd, exts
		}},
		{"no leaf binding", "leaf/unbound", nil, func(epoch uint64, leafKey []byte) ([]byte, *groups.JoinData, tree.Extensions) {
			gi, _ := sam.roster.Group(roster.GeneralGroupID(sam.wsID()))
			dev, _ := sam.roster.Device(sam.devID)
			jd, err := groups.NewJoinData(sam.dev, dev.Admitted, groups.PathSelfJoin, &gi.Policy, [32]byte(gi.Policy.Group), epoch, leafKey, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			return sam.devID[:], jd, nil
		}},
		{"wrong policy hash", "join/forged", nil, func(epoch uint64, leafKey []byte) ([]byte, *groups.JoinData, tree.Extensions) {
			gi, _ := sam.roster.Group(roster.GeneralGroupID(sam.wsID()))
			other := gi.Policy
			other.History = roster.HistoryClosed
			dev, _ := sam.roster.Device(sam.devID)
			jd, err := groups.NewJoinData(sam.dev, dev.Admitted, groups.PathSelfJoin, &other, [32]byte(gi.Policy.Group), epoch, leafKey, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			return sam.devID[:], jd, bind(leafKey)
		}},
		{"recovery path by a device no recovery admitted", "join/forged", nil, func(epoch uint64, leafKey []byte) ([]byte, *groups.JoinData, tree.Extensions) {
			gi, _ := sam.roster.Group(roster.GeneralGroupID(sam.wsID()))
			dev, _ := sam.roster.Device(sam.devID)
			jd, err := groups.NewJoinData(sam.dev, dev.Admitted, groups.PathRecovery, &gi.Policy, [32]byte(gi.Policy.Group), epoch, leafKey, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			return sam.devID[:], jd, bind(leafKey)
		}},
		{"agent external commit", "join/forged", func() {
			agent, _ := identity.GenerateKey[identity.Agent](seededRand(78))
			sam.mu.Lock()
			defer sam.mu.Unlock()
			err := sam.appendRoster(ctx, func() (roster.Body, error) {
				cert, err := identity.IssueDelegation(sam.dev, agent.Public(), []identity.GroupID{roster.GeneralGroupID(sam.wsID())},
					sam.now().Add(-time.Minute), sam.now().Add(time.Hour))
				if err != nil {
					return nil, err
				}
				proof, err := roster.AgentPossession(sam.wsID(), agent)
				if err != nil {
					return nil, err
				}
				return &roster.AdmitAgent{Cert: cert, Possession: proof, Name: "bot"}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			agentKeys = agent
		}, func(epoch uint64, leafKey []byte) ([]byte, *groups.JoinData, tree.Extensions) {
			id := identity.AgentIDOf(agentKeys.Public())
			gi, _ := sam.roster.Group(roster.GeneralGroupID(sam.wsID()))
			jd := &groups.JoinData{Path: groups.PathSelfJoin, Device: identity.DeviceID(id), PolicyHash: gi.Policy.Hash(),
				LeafSigKey: leafKey, Signature: make([]byte, 64)}
			// The agent's leaf is bound (its certificate names #general):
			// the external commit itself is what is refused.
			exts, err := groups.LeafExtensions(agentKeys, sam.wsID(), identity.AgentPrincipal(id), leafKey)
			if err != nil {
				t.Fatal(err)
			}
			return id[:], jd, exts
		}},
		{"revoked device", "leaf/unbound", func() {
			dana.mu.Lock()
			defer dana.mu.Unlock()
			err := dana.appendRoster(ctx, func() (roster.Body, error) {
				return &roster.Revoke{RevokedAt: dana.now(), Targets: []identity.Principal{identity.DevicePrincipal(sam.devID)}}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			sam.mu.Lock()
			defer sam.mu.Unlock()
			if _, err := sam.syncRoster(ctx); err != nil {
				t.Fatal(err)
			}
		}, func(epoch uint64, leafKey []byte) ([]byte, *groups.JoinData, tree.Extensions) {
			gi, _ := sam.roster.Group(roster.GeneralGroupID(sam.wsID()))
			dev, _ := sam.roster.Device(sam.devID)
			jd, err := groups.NewJoinData(sam.dev, dev.Admitted, groups.PathSelfJoin, &gi.Policy, [32]byte(gi.Policy.Group), epoch, leafKey, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			return sam.devID[:], jd, bind(leafKey)
		}},
	}
	general := roster.GeneralGroupID(dana.wsID())
	for _, c := range cases {
		if c.before != nil {
			c.before()
		}
		epoch := forgeJoin(t, sam, "general", c.tamper)
		for _, who := range []*Engine{dana, lee} {
			alerts := len(alertsBut(who, AlertRosterChange))
			if _, err := who.Sync(ctx); err != nil {
				t.Fatalf("%s: sync: %v", c.name, err)
			}
			st := alertsBut(who, AlertRosterChange)
			if len(st) != alerts+1 || st[len(st)-1].Code != c.code {
				t.Fatalf("%s: alerts %+v", c.name, st)
			}
			t.Logf("%s: %s", c.name, st[len(st)-1].Message)
		}
		// Within one epoch: the commit right after the forged one removes
		// it; a refused one never moved the epoch.
		want := epoch + 1
		if c.code == "leaf/unbound" {
			want = epoch - 1
		}
		for _, who := range []*Engine{dana, lee} {
			if _, err := who.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			who.mu.Lock()
			g := who.groups[general]
			ep := g.mls.Epoch()
			n := len(g.mls.Members())
			who.mu.Unlock()
			if ep != want {
				t.Fatalf("%s: epoch %d after forged epoch %d, want %d", c.name, ep, epoch, want)
			}
			if n != 3 {
				t.Fatalf("%s: %d members after eviction, want 3", c.name, n)
			}
		}
		// Sam's client followed too (it is still a member of #general).
		sam.mu.Lock()
		sam.groups[general].pending = nil
		sam.mu.Unlock()
	}
	if first := alertsBut(dana, AlertRosterChange)[0]; !strings.Contains(first.Message, "not in the roster") {
		t.Errorf("first alert: %s", first.Message)
	}
	// The evictions added history keys; everybody still reads #general,
	// and a message after them is readable by the members.
	if _, err := dana.Send(ctx, "general", "after the evictions"); err != nil {
		t.Fatal(err)
	}
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ms, err := lee.Messages(ctx, "general", 1)
	if err != nil || len(ms) != 1 || ms[0].Text != "after the evictions" {
		t.Fatalf("lee reads %+v %v", ms, err)
	}
}

var agentKeys identity.AgentPrivate
