package engine

import (
	"context"
	"fmt"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/roster"
)

// Recovery quorum (docs/protocol/roster.md "Recovery quorum"): an admin
// registers k of n people; k of them vouching for a recovered device ends
// its probation.

// QuorumMember is one person of the recovery quorum.
type QuorumMember struct {
	User string `json:"user"` // user id (hex)
	Name string `json:"name"`
	// Active: still a member and holding a live device not on probation.
	Active bool `json:"active"`
}

// Quorum is the workspace's recovery quorum as shown.
type Quorum struct {
	Registered bool           `json:"registered"`
	Threshold  int            `json:"threshold"`
	Members    []QuorumMember `json:"members"`
	// Live: every member is still in the workspace and the quorum could
	// vouch for any admin's recovered device (roster QuorumLive; the
	// health row admin_devices passes on it).
	Live bool `json:"live"`
}

// Errors of the recovery quorum.
var (
	ErrQuorumNotAdmin  = errcode.New("quorum/not_admin", "only an admin device registers a recovery quorum")
	ErrQuorumThreshold = errcode.New("quorum/threshold", "the threshold must be at least 1 and at most the number of people named")
	ErrQuorumNone      = errcode.New("quorum/none", "this workspace has no recovery quorum; an admin registers one with weald recovery quorum set")
	ErrQuorumNotMember = errcode.New("quorum/not_member", "you are not in this workspace's recovery quorum, so your vouch would not count")
)

// RecoveryQuorum returns the registered recovery quorum (Registered false
// when there is none).
func (e *Engine) RecoveryQuorum() Quorum {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.quorumView()
}

func (e *Engine) quorumView() Quorum {
	q, ok := e.roster.RecoveryQuorum()
	if !ok {
		return Quorum{Members: []QuorumMember{}}
	}
	out := Quorum{Registered: true, Threshold: q.Threshold, Live: e.roster.QuorumLive(), Members: []QuorumMember{}}
	for _, u := range q.Users {
		m := QuorumMember{User: hexID(u).hex(), Name: e.userName(u)}
		if info, ok := e.roster.User(u); ok && info.RevokedAt == nil {
			for _, d := range info.Devices {
				if di, _ := e.roster.Device(d); e.roster.DeviceLive(d) && !di.Probation {
					m.Active = true
				}
			}
		}
		out.Members = append(out.Members, m)
	}
	return out
}

// SetRecoveryQuorum registers (or replaces) the recovery quorum: threshold
// of the people named (names, @names or user ids) must vouch for a
// recovered device. Admin only.
func (e *Engine) SetRecoveryQuorum(ctx context.Context, people []string, threshold int) (Quorum, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return Quorum{}, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return Quorum{}, err
	}
	if !e.roster.IsAdmin(e.devID) {
		return Quorum{}, ErrQuorumNotAdmin
	}
	if threshold < 1 || threshold > len(people) || threshold > roster.MaxQuorumUsers {
		return Quorum{}, fmt.Errorf("%w (%d of %d)", ErrQuorumThreshold, threshold, len(people))
	}
	var users []identity.UserID
	for _, p := range people {
		u, err := e.findUser(p)
		if err != nil {
			return Quorum{}, err
		}
		users = append(users, u.ID)
	}
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		return &roster.SetRecoveryQuorum{Threshold: uint8(threshold), Users: users}, nil
	}); err != nil {
		return Quorum{}, err
	}
	e.emit(Event{Kind: EventRoster})
	return e.quorumView(), nil
}

// Vouch is the outcome of one vouch for a recovered device.
type Vouch struct {
	Device    string `json:"device"`
	User      string `json:"user"`
	Vouches   int    `json:"vouches"` // counted toward the threshold, this one included
	Threshold int    `json:"threshold"`
	Probation bool   `json:"probation"` // still on probation after it
}

// VouchDevice vouches, as a member of the recovery quorum, for a device
// recovered with a recovery phrase; the threshold-th vouch ends its
// probation. Vouch only after hearing from its person that they recovered.
func (e *Engine) VouchDevice(ctx context.Context, device string) (Vouch, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return Vouch{}, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return Vouch{}, err
	}
	q, ok := e.roster.RecoveryQuorum()
	if !ok {
		return Vouch{}, ErrQuorumNone
	}
	me, _ := e.roster.Device(e.devID)
	member := false
	for _, u := range q.Users {
		member = member || u == me.User
	}
	if !member {
		return Vouch{}, ErrQuorumNotMember
	}
	d, err := e.findDevice(device)
	if err != nil {
		return Vouch{}, err
	}
	out := Vouch{Device: hexID(d.ID).hex(), User: hexID(d.User).hex(), Threshold: q.Threshold}
	if !d.Probation || d.RevokedAt != nil {
		return out, ErrNotOnProbation
	}
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		if cur, ok := e.roster.Device(d.ID); !ok || !cur.Probation {
			return nil, nil
		}
		return &roster.VouchDevice{Device: d.ID}, nil
	}); err != nil {
		return out, err
	}
	cur, _ := e.roster.Device(d.ID)
	out.Vouches, out.Probation = e.roster.VouchesCounted(d.ID), cur.Probation
	if !cur.Probation && e.roster.IsAdmin(e.devID) {
		if err := e.publishAccessSet(ctx); err != nil {
			return out, err
		}
	}
	e.emit(Event{Kind: EventRoster})
	return out, nil
}

// probationUntil says what ends a recovered device's probation, for an
// alert: "until an admin approves it", and with a registered recovery
// quorum "or k members of the recovery quorum vouch for it".
func (e *Engine) probationUntil() string {
	if q, ok := e.roster.RecoveryQuorum(); ok {
		return fmt.Sprintf("until an admin approves it or %d members of the recovery quorum vouch for it", q.Threshold)
	}
	return "until an admin approves it"
}

// inQuorum reports whether user is in the registered recovery quorum.
func (e *Engine) inQuorum(user identity.UserID) bool {
	q, _ := e.roster.RecoveryQuorum()
	for _, u := range q.Users {
		if u == user {
			return true
		}
	}
	return false
}
