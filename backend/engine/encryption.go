package engine

import (
	"time"

	"weald/backend/retention"
)

// GroupEncryption is one group's encryption state as the Encryption &
// health panel shows it (spec/lifecycle.md "Ongoing health",
// "Interaction with open history").
type GroupEncryption struct {
	Channel string `json:"channel"` // channel name, or "DM with X"
	Group   string `json:"group"`   // hex id
	Kind    string `json:"kind"`    // ws, chan, dm
	History string `json:"history"` // open, closed
	Epoch   uint64 `json:"epoch"`   // current MLS epoch
	// Devices counts the group's member leaves (devices and agents);
	// People the distinct people they belong to.
	Devices int `json:"devices"`
	People  int `json:"people"`
	// TextWindow/MediaWindow: the retention policy in force (0 =
	// unlimited); DefaultPolicy: none is set, the defaults apply.
	TextWindow     time.Duration `json:"text_window_ns"`
	MediaWindow    time.Duration `json:"media_window_ns"`
	DefaultPolicy  bool          `json:"default_policy"`
	ChainFrozen    bool          `json:"chain_frozen"`
	LastCheckpoint time.Time     `json:"last_checkpoint,omitzero"`
	// VerifiedFrom: history read from a checkpoint; author chains are
	// verified from then on ("history verified from").
	VerifiedFrom time.Time `json:"history_verified_from,omitzero"`
}

// Encryption lists the encryption state of every group this device is a
// member of, in sidebar order.
func (e *Engine) Encryption() []GroupEncryption {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := []GroupEncryption{}
	for _, gi := range e.roster.Groups() {
		if gi.Deleted || !e.member(gi.Policy.Group) {
			continue
		}
		g := e.groups[gi.Policy.Group]
		pol := retention.Effective(gi)
		r := &g.rec.Retention
		ge := GroupEncryption{Channel: e.groupLabel(gi), Group: hexID(gi.Policy.Group).hex(), Kind: gi.Policy.Kind.String(),
			History: gi.Policy.History.String(), Epoch: g.mls.Epoch(), TextWindow: pol.TextWindow, MediaWindow: pol.MediaWindow,
			DefaultPolicy: !pol.Active, ChainFrozen: r.Chain.Frozen, VerifiedFrom: r.VerifiedFrom}
		if n := len(r.Trusted); n > 0 {
			ge.LastCheckpoint = r.Trusted[n-1].At
		}
		people := map[string]bool{}
		for _, m := range g.mls.Members() {
			ge.Devices++
			people[e.leafOwner(m.Credential.Identity)] = true
		}
		ge.People = len(people)
		out = append(out, ge)
	}
	return out
}

// leafOwner names the person (user id, hex) a leaf's principal belongs
// to: a device's user, an agent's delegating user; else the id itself.
func (e *Engine) leafOwner(id []byte) string {
	if len(id) != 32 {
		return string(id)
	}
	if d, ok := e.roster.Device([32]byte(id)); ok {
		return hexID(d.User).hex()
	}
	if a, ok := e.roster.Agent([32]byte(id)); ok && a.Cert != nil {
		if d, ok := e.roster.Device(a.Cert.IssuingDevice); ok {
			return hexID(d.User).hex()
		}
	}
	return hexID([32]byte(id)).hex()
}
