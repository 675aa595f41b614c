package engine

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/mls"
	"weald/backend/mls/tree"
	"weald/backend/store"
	"weald/backend/wire"
)

type cryptoRand struct{}

func (cryptoRand) Read(p []byte) (int, error) { return rand.Read(p) }

// suiteID is MLS cipher suite 1 (docs/protocol/groups.md "MLS profile").
const suiteID = 1

// groupRec is a group's persisted local state (store: Tx.PutGroup, as JSON).
type groupRec struct {
	ID        hexID             `json:"id"`
	MLS       []byte            `json:"mls,omitempty"`        // mls.Group state; nil when not a member
	History   [][]byte          `json:"history,omitempty"`    // open groups: every history key, oldest first
	EpochKeys map[string][]byte `json:"epoch_keys,omitempty"` // closed groups: content key per epoch
	Enrol     map[string][]byte `json:"enrol,omitempty"`      // root only: enrolment secret per root epoch
	LastSeq   uint64            `json:"last_seq"`             // highest seq processed
	// Recent: the hashes of the envelopes at the last seqs processed
	// (at most recentHeads), compared with head attestations.
	Recent  []seqHash `json:"recent,omitempty"`
	OwnCtr  uint64    `json:"own_ctr"`
	OwnPrev hexID     `json:"own_prev"`
	// BundleEpoch is the root epoch of the latest groupinfo.publish seen in
	// this group's log; InviteEpochs (root only) the root epoch of the
	// latest bundle per invite (hex id). Stale ones are repaired on sync.
	BundleEpoch uint64 `json:"bundle_epoch"`
	// BundleOwed: this device moved the group's epoch (its self-join) and
	// has not published the standing bundles of the new epoch yet.
	BundleOwed   bool              `json:"bundle_owed,omitempty"`
	InviteEpochs map[string]uint64 `json:"invite_epochs,omitempty"`
	// Joins: when this device merged each principal's self-joins into the
	// group in the last hour (groups.JoinRate, the receivers' limit).
	Joins groups.JoinRate `json:"joins,omitempty"`
	// Retention: retention keys, chain, checkpoints (retention.go).
	Retention retentionRec `json:"retention"`
	// Health: what the weekly check reads from the log (health.go).
	Health groupHealth `json:"health"`
	// Pending: this device's commit, persisted before it is sent, until
	// it is merged or another commit takes its epoch (commit.go).
	Pending *pendingRec `json:"pending,omitempty"`
	// Joining: this device's self-join, persisted before its SEND, until
	// it is settled (selfjoin.go).
	Joining *joinRec `json:"joining,omitempty"`
	// WelcomeOwed: the Welcome of a merged commit of this device, not sent
	// yet (commit.go).
	WelcomeOwed []byte   `json:"welcome_owed,omitempty"`
	WelcomeTo   [][]byte `json:"welcome_to,omitempty"`
	// NoticeOwed: the Welcome notice of a Welcome sent, not confirmed by
	// the relay yet (commit.go).
	NoticeOwed *welcomeNotice `json:"notice_owed,omitempty"`
	// Seen: per author (hex id), the newest chat day it wrote a message
	// for in this group's log (lastseen.go).
	Seen map[string]uint32 `json:"seen,omitempty"`
	// OwnRemove: this device's latest merged commit that removed leaves.
	OwnRemove *ownRemove `json:"own_remove,omitempty"`
	// WrapIndex: this device created the group and has read its log from
	// the first envelope, so WrapTags holds the tag of every recovery.wrap
	// in it, per author (hex id): a removal deletes a person's wraps
	// without reading the whole log again (removal.go wrapsDelete).
	WrapIndex bool               `json:"wrap_index,omitempty"`
	WrapTags  map[string][]hexID `json:"wrap_tags,omitempty"`
	// Backfill (an agent, an open group): the seq of the Welcome it joined
	// by, while the content before it waits for a member copy of the
	// history keys; BackfillKeys: one opened since (agentBackfill).
	Backfill     uint64 `json:"backfill,omitempty"`
	BackfillKeys bool   `json:"backfill_keys,omitempty"`
	// Chains: what this client read of each author's chain (chains.go).
	Chains authorChains `json:"chains"`
}

// group is a group this client holds state for.
type group struct {
	rec     groupRec
	mls     *mls.Group // nil: not a member
	history []groups.HistoryKey
	pending *pendingCommit
	joining *joining // a self-join whose commit was sent, not finished
	// verified caches what barrierSets read from each content envelope it
	// verified and opened, so the next checkpoint does not verify and
	// decrypt the whole log again (in memory only).
	verified map[wire.EnvelopeRef]verifiedContent
	// newestDays caches the chat days of the newest trusted checkpoint's
	// manifest (expiryDue), by its ref: the steward asks on every sync.
	newestDays struct {
		ref  wire.EnvelopeRef
		days []uint32
	}
}

// pendingCommit is a commit this client sent and merges when it meets it
// first in the group's log.
type pendingCommit struct {
	staged *mls.StagedCommit
	msg    []byte
	base   uint64
	merged bool
}

func (e *Engine) credential() tree.Credential { return tree.BasicCredential(e.devID[:]) }

func (e *Engine) loadGroups(ctx context.Context) error {
	var all map[[32]byte][]byte
	if err := e.db.view(ctx, func(tx *store.Tx) (err error) {
		all, err = tx.Groups()
		return err
	}); err != nil {
		return err
	}
	for id, v := range all {
		k := hexID(id).hex()
		var rec groupRec
		if err := json.Unmarshal(v, &rec); err != nil {
			return fmt.Errorf("engine: stored state of group %s: %w", k, err)
		}
		if rec.ID != hexID(id) {
			return fmt.Errorf("engine: stored state of group %s names group %s", k, rec.ID.hex())
		}
		g := &group{rec: rec}
		if len(rec.MLS) > 0 {
			var err error
			if g.mls, err = mls.LoadGroup(e.mlsCfg, rec.MLS); err != nil {
				return fmt.Errorf("engine: stored MLS state of %s: %w", k, err)
			}
		}
		for _, hk := range rec.History {
			g.history = append(g.history, groups.HistoryKeyOf(hk))
		}
		if rec.Joining != nil && g.mls == nil {
			var err error
			if g.joining, err = e.restoreJoin(rec.Joining); err != nil {
				return fmt.Errorf("engine: stored self-join of %s: %w", k, err)
			}
		}
		e.groups[identity.GroupID(rec.ID)] = g
	}
	return nil
}

// saveGroup writes g's state in t.
func (e *Engine) saveGroup(t *txn, g *group) error {
	if g.mls != nil {
		b, err := g.mls.Encode()
		if err != nil {
			return err
		}
		g.rec.MLS = b
	} else {
		g.rec.MLS = nil
	}
	g.rec.History = g.rec.History[:0]
	for _, hk := range g.history {
		g.rec.History = append(g.rec.History, hk.Key)
	}
	b, err := json.Marshal(&g.rec)
	if err != nil {
		return err
	}
	return t.tx.PutGroup(g.rec.ID, b)
}

func (e *Engine) persistGroup(ctx context.Context, g *group) error {
	return e.db.update(ctx, func(t *txn) error { return e.saveGroup(t, g) })
}

func (e *Engine) groupState(id identity.GroupID) *group {
	g := e.groups[id]
	if g == nil {
		g = &group{rec: groupRec{ID: hexID(id)}}
		g.startChains()
		e.groups[id] = g
	}
	return g
}

// member reports whether this device holds an MLS leaf in id.
func (e *Engine) member(id identity.GroupID) bool {
	g := e.groups[id]
	return g != nil && g.mls != nil && g.mls.Active()
}

// noteEpoch records the per-epoch secrets of g's current epoch: the content
// key of a closed group and, for the root, the enrolment secret.
func (e *Engine) noteEpoch(g *group, closed, root bool) error {
	// A commit that removed this device leaves a state it may not use: its
	// epoch secrets are derived without the commit secret (the path is not
	// sealed to a removed leaf), so they are nobody's, and keeping them as
	// this epoch's enrolment or content key would have this device seal
	// or open with a key no member holds.
	if g.mls == nil || !g.mls.Active() {
		return nil
	}
	if err := e.noteRetentionSeed(g); err != nil {
		return err
	}
	ep := strconv.FormatUint(g.mls.Epoch(), 10)
	if closed {
		k, err := groups.ContentEpochKey(g.mls)
		if err != nil {
			return err
		}
		if g.rec.EpochKeys == nil {
			g.rec.EpochKeys = map[string][]byte{}
		}
		g.rec.EpochKeys[ep] = k
	}
	if root {
		s, err := groups.EnrolmentSecret(g.mls)
		if err != nil {
			return err
		}
		if g.rec.Enrol == nil {
			g.rec.Enrol = map[string][]byte{}
		}
		g.rec.Enrol[ep] = s
		// Keep the 64 most recent root epochs.
		for k := range g.rec.Enrol {
			if n, _ := strconv.ParseUint(k, 10, 64); n+64 < g.mls.Epoch() {
				delete(g.rec.Enrol, k)
			}
		}
	}
	return nil
}

// enrolSecret returns the enrolment secret of a root epoch this client holds.
func (e *Engine) enrolSecret(epoch uint64) ([]byte, bool) {
	root := e.groups[e.roster.RootGroup()]
	if root == nil {
		return nil, false
	}
	s, ok := root.rec.Enrol[strconv.FormatUint(epoch, 10)]
	return s, ok
}

// currentEnrol returns the current root epoch and its enrolment secret.
func (e *Engine) currentEnrol() (uint64, []byte, bool) {
	root := e.groups[e.roster.RootGroup()]
	if root == nil || root.mls == nil {
		return 0, nil, false
	}
	s, ok := e.enrolSecret(root.mls.Epoch())
	return root.mls.Epoch(), s, ok
}

func shortName(s string) string { return strings.TrimPrefix(s, "#") }
