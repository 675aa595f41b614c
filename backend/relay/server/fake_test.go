package server

import (
	"context"
	"crypto/ed25519"
	"slices"
	"sync"
	"sync/atomic"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// fakeBackend is a minimal in-memory Backend for transport tests: it admits
// the keys and grants of its access set, assigns seqs, and checks nothing
// else (the real checks are relay.Service's and are tested there and in
// this package's tests against it).
type fakeBackend struct {
	mu      sync.Mutex
	set     wire.AccessSet
	voided  map[wire.ID]bool
	bound   map[wire.ID]wire.ID // grant connection key id → grant hash
	logs    map[wire.ID][]wire.SeqEnvelope
	changes chan store.Change
	fetches atomic.Int64 // Fetch calls
	readErr error        // AccessSet and Allowed fail with it when set
	pingErr error
}

func newFake(ws wire.ID, keys ...ed25519.PublicKey) *fakeBackend {
	f := &fakeBackend{logs: map[wire.ID][]wire.SeqEnvelope{}, voided: map[wire.ID]bool{}, bound: map[wire.ID]wire.ID{}}
	f.set.Workspace = ws
	f.set.Version = 1
	for _, k := range keys {
		f.set.Devices = append(f.set.Devices, wire.DeviceKey{Pub: k})
	}
	return f
}

func (f *fakeBackend) Ping(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pingErr
}

// fakeRelayID is the fake relay's id.
var fakeRelayID = wire.ID{0xFA, 0x4E}

func (f *fakeBackend) RelayID(context.Context) (wire.ID, error) { return fakeRelayID, nil }

func (f *fakeBackend) Authenticate(_ context.Context, b wire.AuthBinding, a *wire.Auth) (Principal, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if b.Workspace != f.set.Workspace {
		return Principal{}, wire.Errorf(wire.CodeWorkspaceUnknown, "unknown workspace")
	}
	if b.Relay != fakeRelayID {
		return Principal{}, wire.Errorf(wire.CodeAuthWrongRelay, "another relay")
	}
	if err := a.VerifyChallenge(b); err != nil {
		return Principal{}, wire.Errorf(wire.CodeAuthBadSignature, "bad signature")
	}
	if a.Method == wire.PrincipalGrant {
		h := wire.ID(a.Grant)
		if f.voided[h] {
			return Principal{}, wire.Errorf(wire.CodeAuthRevoked, "voided grant")
		}
		if !f.set.HasGrant(h) {
			return Principal{}, wire.Errorf(wire.CodeAuthUnknownKey, "unknown grant")
		}
		f.bound[wire.KeyID(a.Key)] = h
		return Principal{Kind: wire.PrincipalGrant, Principal: wire.KeyID(a.Key), AccessVersion: f.set.Version}, nil
	}
	id := wire.KeyID(a.Key)
	if _, k := f.set.Lookup(id); k == wire.PrincipalNone {
		return Principal{}, wire.Errorf(wire.CodeAuthUnknownKey, "unknown key")
	}
	return Principal{Kind: a.Method, Principal: id, AccessVersion: f.set.Version}, nil
}

func (f *fakeBackend) Send(_ context.Context, ws wire.ID, p Principal, envs []wire.Envelope) ([]wire.AckItem, []wire.SeqEnvelope, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var items []wire.AckItem
	var acc []wire.SeqEnvelope
	for _, e := range envs {
		log := f.logs[e.Group]
		se := wire.SeqEnvelope{Seq: uint64(len(log) + 1), Envelope: e}
		f.logs[e.Group] = append(log, se)
		items = append(items, wire.AckItem{Group: e.Group, Seq: se.Seq, Hash: e.Hash()})
		acc = append(acc, se)
	}
	return items, acc, nil
}

func (f *fakeBackend) Fetch(_ context.Context, ws, group wire.ID, after uint64, limit uint32) (*wire.Envelopes, error) {
	f.fetches.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	log := f.logs[group]
	res := &wire.Envelopes{Group: group, HeadSeq: uint64(len(log))}
	for i := int(after); i < len(log); i++ {
		if len(res.Envelopes) == int(limit) {
			res.More = true
			break
		}
		res.Envelopes = append(res.Envelopes, log[i])
	}
	return res, nil
}

func (f *fakeBackend) FetchLatest(_ context.Context, ws, group wire.ID, kinds []wire.Kind) (*wire.Latest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	log := f.logs[group]
	res := &wire.Latest{Group: group, HeadSeq: uint64(len(log))}
	for i := len(log) - 1; i >= 0; i-- {
		for _, k := range kinds {
			if log[i].Envelope.Kind == k {
				res.Envelopes = append([]wire.SeqEnvelope{log[i]}, res.Envelopes...)
				kinds = slices.DeleteFunc(slices.Clone(kinds), func(x wire.Kind) bool { return x == k })
				break
			}
		}
	}
	return res, nil
}

func (f *fakeBackend) RosterAppend(context.Context, wire.ID, Principal, wire.ID, []byte) (*wire.RosterAppended, error) {
	return &wire.RosterAppended{Index: 1}, nil
}

func (f *fakeBackend) RosterFetch(context.Context, wire.ID, uint64, uint32) (*wire.RosterOps, error) {
	return &wire.RosterOps{}, nil
}

func (f *fakeBackend) Provision(context.Context, wire.ID, []byte, []byte) error {
	return wire.Errorf(wire.CodeProvisionOperatorOnly, "The fake relay does not provision.")
}

func (f *fakeBackend) Teardown(_ context.Context, ws wire.ID, _ []byte) error {
	return wire.Errorf(wire.CodeProvisionActive, "The fake relay tears nothing down.", wire.B("workspace", ws[:]))
}

func (f *fakeBackend) PublishAccessSet(_ context.Context, ws wire.ID, _ Principal, set wire.AccessSet) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, g := range f.set.Grants {
		if !set.HasGrant(g) {
			f.voided[g] = true
		}
	}
	f.set = set
	return set.Version, nil
}

// replaceSet changes the set without going through the transport (as if
// another relay process accepted it).
func (f *fakeBackend) replaceSet(set wire.AccessSet) {
	f.PublishAccessSet(context.Background(), set.Workspace, Principal{}, set)
}

func (f *fakeBackend) AccessRefusals(context.Context, wire.ID, uint64) (*wire.AccessRefusals, error) {
	return &wire.AccessRefusals{}, nil
}

func (f *fakeBackend) CurrentAccessSet(ctx context.Context, ws wire.ID) (*wire.AccessSetCurrent, error) {
	set, err := f.AccessSet(ctx, ws)
	if err != nil {
		return nil, err
	}
	return &wire.AccessSetCurrent{Set: set}, nil
}

func (f *fakeBackend) AccessSet(context.Context, wire.ID) (wire.AccessSet, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.readErr != nil {
		return wire.AccessSet{}, f.readErr
	}
	return f.set, nil
}

func (f *fakeBackend) Allowed(_ context.Context, _ wire.ID, kind wire.PrincipalKind, id wire.ID) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.readErr != nil {
		return false, f.readErr
	}
	_, k := f.set.Lookup(id)
	if kind == wire.PrincipalGrant && k == wire.PrincipalNone {
		g, ok := f.bound[id]
		return ok && f.set.HasGrant(g) && !f.voided[g], nil
	}
	return k == kind || (kind == wire.PrincipalGrant && k != wire.PrincipalNone), nil
}

func (f *fakeBackend) KeyPackagePut(context.Context, wire.ID, Principal, []wire.KeyPackageItem) (*wire.KeyPackageStock, error) {
	return &wire.KeyPackageStock{}, nil
}

func (f *fakeBackend) KeyPackageClaim(context.Context, wire.ID, Principal, wire.ID) (*wire.KeyPackageClaimed, error) {
	return nil, wire.Errorf(wire.CodeKeyPackageNone, "none")
}

func (f *fakeBackend) KeyPackageClaimBatch(_ context.Context, _ wire.ID, _ Principal, owners []wire.ID) ([]wire.ClaimedItem, error) {
	out := make([]wire.ClaimedItem, len(owners))
	for i, o := range owners {
		out[i] = wire.ClaimedItem{Owner: o}
	}
	return out, nil
}

func (f *fakeBackend) DeleteWraps(context.Context, wire.ID, Principal, wire.WrapsDelete) (*wire.WrapsDeleted, error) {
	return nil, wire.Errorf(wire.CodeWrapsNotAdmin, "not admin")
}
func (f *fakeBackend) WelcomeNotice(context.Context, wire.ID, Principal, wire.WelcomeNotice) error {
	return wire.Errorf(wire.CodeMalformed, "not in the fake")
}
func (f *fakeBackend) Welcomes(context.Context, wire.ID, Principal) (*wire.Welcomes, error) {
	return &wire.Welcomes{}, nil
}
func (f *fakeBackend) WelcomesDone(context.Context, wire.ID, Principal, []wire.WelcomeRef) error {
	return nil
}
func (f *fakeBackend) RecoveryDirPut(context.Context, wire.ID, Principal, []wire.DirPut) error {
	return wire.Errorf(wire.CodeDirNotOwner, "not in the fake")
}
func (f *fakeBackend) RecoveryDir(context.Context, wire.ID, Principal, wire.ID) (*wire.RecoveryDir, error) {
	return &wire.RecoveryDir{}, nil
}
func (f *fakeBackend) RecoveryDirDrop(context.Context, wire.ID, Principal, wire.RecoveryDirDrop) (*wire.RecoveryDirDropped, error) {
	return nil, wire.Errorf(wire.CodeDirNotAllowed, "not in the fake")
}
func (f *fakeBackend) DeleteWrapsBatch(context.Context, wire.ID, Principal, []wire.WrapsDelete) ([]wire.WrapsDeleted, error) {
	return nil, wire.Errorf(wire.CodeMalformed, "not in the fake")
}

func (f *fakeBackend) DropBefore(context.Context, wire.ID, Principal, wire.DropBefore) (*wire.Dropped, error) {
	return nil, wire.Errorf(wire.CodeDropNoPolicy, "no policy")
}

func (f *fakeBackend) Stats(_ context.Context, ws wire.ID) (*wire.Stats, error) {
	return &wire.Stats{Workspace: ws}, nil
}

func (f *fakeBackend) Changes(context.Context) (<-chan store.Change, error) {
	if f.changes == nil {
		return nil, nil
	}
	return f.changes, nil
}
