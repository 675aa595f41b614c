package store

import (
	"database/sql"
	"errors"
	"fmt"

	"weald/backend/wire"
)

// Group kinds.
const (
	GroupRoot    = "root"
	GroupChannel = "channel"
	GroupDM      = "dm"
)

// Group is a group this client knows of and its local state.
type Group struct {
	ID         wire.ID
	Kind       string  // GroupRoot, GroupChannel or GroupDM
	PolicyHash wire.ID // the GroupPolicy it exists under; zero for none (a DM)
	Name       string
	Muted      bool
	Order      int    // position in the sidebar
	Joined     bool   // this client is a member
	MLSState   []byte // the MLS group state (backend/mls), nil when not joined
	Epoch      uint64
	FetchedSeq uint64 // envelopes up to this seq have been fetched
}

// PutGroup records a group or replaces every field of a known one, except
// FetchedSeq, which only moves forward.
func (t *Tx) PutGroup(g Group) error {
	switch g.Kind {
	case GroupRoot, GroupChannel, GroupDM:
	default:
		return fmt.Errorf("store: group kind %q", g.Kind)
	}
	_, err := t.exec(`INSERT INTO groups (id, kind, policy_hash, name, muted, sort_order, joined, mls_state, epoch, fetched_seq)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, policy_hash = excluded.policy_hash,
			name = excluded.name, muted = excluded.muted, sort_order = excluded.sort_order,
			joined = excluded.joined, mls_state = excluded.mls_state, epoch = excluded.epoch,
			fetched_seq = max(fetched_seq, excluded.fetched_seq)`,
		g.ID[:], g.Kind, idOrNil(g.PolicyHash), g.Name, b2i(g.Muted), g.Order, b2i(g.Joined), g.MLSState,
		int64(g.Epoch), int64(g.FetchedSeq))
	if err != nil {
		return fmt.Errorf("store: put group %s: %w", g.ID.Short(), err)
	}
	return nil
}

const groupCols = `id, kind, policy_hash, name, muted, sort_order, joined, mls_state, epoch, fetched_seq`

func scanGroup(sc interface{ Scan(...any) error }) (Group, error) {
	var g Group
	var id, ph []byte
	var muted, joined int
	var epoch, fetched int64
	if err := sc.Scan(&id, &g.Kind, &ph, &g.Name, &muted, &g.Order, &joined, &g.MLSState, &epoch, &fetched); err != nil {
		return g, err
	}
	g.Muted, g.Joined, g.Epoch, g.FetchedSeq = muted == 1, joined == 1, uint64(epoch), uint64(fetched)
	if err := scanID(id, &g.ID); err != nil {
		return g, err
	}
	if ph != nil {
		if err := scanID(ph, &g.PolicyHash); err != nil {
			return g, err
		}
	}
	return g, nil
}

// Group returns one group, or [ErrNotFound].
func (t *Tx) Group(id wire.ID) (Group, error) {
	g, err := scanGroup(t.row(`SELECT `+groupCols+` FROM groups WHERE id = ?`, id[:]))
	if errors.Is(err, sql.ErrNoRows) {
		return g, ErrNotFound
	}
	if err != nil {
		return g, fmt.Errorf("store: group %s: %w", id.Short(), err)
	}
	return g, nil
}

// Groups returns every group in sidebar order (order, then name, then id).
func (t *Tx) Groups() ([]Group, error) {
	rows, err := t.query(`SELECT ` + groupCols + ` FROM groups ORDER BY sort_order, name, id`)
	if err != nil {
		return nil, fmt.Errorf("store: groups: %w", err)
	}
	defer rows.Close()
	var out []Group
	for rows.Next() {
		g, err := scanGroup(rows)
		if err != nil {
			return nil, fmt.Errorf("store: groups: %w", err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

func (t *Tx) updateGroup(id wire.ID, set string, args ...any) error {
	res, err := t.exec(`UPDATE groups SET `+set+` WHERE id = ?`, append(args, id[:])...)
	return oneRow(res, err, ErrNotFound)
}

// SetGroupMuted mutes or unmutes a group.
func (t *Tx) SetGroupMuted(id wire.ID, muted bool) error {
	return t.updateGroup(id, `muted = ?`, b2i(muted))
}

// RenameGroup sets a group's display name.
func (t *Tx) RenameGroup(id wire.ID, name string) error {
	return t.updateGroup(id, `name = ?`, name)
}

// SetGroupOrder sets a group's sidebar position.
func (t *Tx) SetGroupOrder(id wire.ID, order int) error {
	return t.updateGroup(id, `sort_order = ?`, order)
}

// SetGroupState records membership and the MLS state at epoch, in the same
// transaction as whatever caused it (a processed commit, a join).
func (t *Tx) SetGroupState(id wire.ID, joined bool, mlsState []byte, epoch uint64) error {
	return t.updateGroup(id, `joined = ?, mls_state = ?, epoch = ?`, b2i(joined), mlsState, int64(epoch))
}

// SetFetchedSeq records that envelopes up to seq have been fetched; it never
// moves backwards.
func (t *Tx) SetFetchedSeq(id wire.ID, seq uint64) error {
	return t.updateGroup(id, `fetched_seq = max(fetched_seq, ?)`, int64(seq))
}
