package store

import (
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
)

// The engine's state, one accessor pair per kind (schema 0002). Values are
// the engine's own encodings (JSON records, MLS and Automerge bytes); the
// store seals them (seal.go) and names the row in each seal.

// Record names one of the engine's one-of-a-kind records; the list below is
// all there are (a struct, so that no string converts to one by accident).
type Record struct{ name string }

// The records.
var (
	// RecordWorkspace: the workspace record (ids, relay, device seed,
	// bootstrap steps, invite in use, recovery phrase until handed out).
	RecordWorkspace = Record{"workspace"}
	// RecordAlerts: the security alerts kept for status.
	RecordAlerts = Record{"alerts"}
	// RecordOutbox: the messages waiting to be sent, in order.
	RecordOutbox = Record{"outbox"}
	// RecordAttestations: head attestations received and sent.
	RecordAttestations = Record{"attestations"}
)

// Record returns the record r and whether there is one.
func (t *Tx) Record(r Record) ([]byte, bool, error) {
	var sealed []byte
	err := t.row(`SELECT sealed FROM records WHERE name = ?`, r.name).Scan(&sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	v, err := t.open("records", []byte(r.name), sealed)
	return v, err == nil, err
}

// PutRecord stores the record r.
func (t *Tx) PutRecord(r Record, v []byte) error {
	if r.name == "" {
		return fmt.Errorf("store: a record needs a name")
	}
	sealed, err := t.seal("records", []byte(r.name), v)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO records (name, sealed) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET sealed = excluded.sealed`, r.name, sealed)
	return err
}

// Groups returns every group's stored state by group id.
func (t *Tx) Groups() (map[[32]byte][]byte, error) {
	return t.sealedByID("groups", "group")
}

// PutGroup stores the state of group id.
func (t *Tx) PutGroup(id [32]byte, state []byte) error {
	return t.putSealedByID("groups", id, state)
}

// sealedByID opens every row of an (id, sealed) table keyed by a 32-byte id;
// what names the id in the error for a row of another length.
func (t *Tx) sealedByID(table, what string) (map[[32]byte][]byte, error) {
	rows, err := t.query(`SELECT id, sealed FROM ` + table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[[32]byte][]byte{}
	for rows.Next() {
		var id, sealed []byte
		if err := rows.Scan(&id, &sealed); err != nil {
			return nil, err
		}
		if len(id) != 32 {
			return nil, fmt.Errorf("%w (%s id of %d bytes)", ErrUnreadable, what, len(id))
		}
		v, err := t.open(table, id, sealed)
		if err != nil {
			return nil, err
		}
		out[[32]byte(id)] = v
	}
	return out, rows.Err()
}

// putSealedByID seals v for row id of an (id, sealed) table and stores it,
// replacing what the row held.
func (t *Tx) putSealedByID(table string, id [32]byte, v []byte) error {
	sealed, err := t.seal(table, id[:], v)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO `+table+` (id, sealed) VALUES (?, ?)
		ON CONFLICT (id) DO UPDATE SET sealed = excluded.sealed`, id[:], sealed)
	return err
}

// KeyPackage is the private half of one of this device's key packages.
type KeyPackage struct {
	Ref     []byte // the key package's reference (RFC 9420 §5.2)
	Private []byte
}

// KeyPackages returns the stored key packages, by reference.
func (t *Tx) KeyPackages() ([]KeyPackage, error) {
	rows, err := t.query(`SELECT ref, sealed FROM key_packages ORDER BY ref`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []KeyPackage
	for rows.Next() {
		var ref, sealed []byte
		if err := rows.Scan(&ref, &sealed); err != nil {
			return nil, err
		}
		v, err := t.open("key_packages", ref, sealed)
		if err != nil {
			return nil, err
		}
		out = append(out, KeyPackage{Ref: ref, Private: v})
	}
	return out, rows.Err()
}

// PutKeyPackage stores a key package's private half under its reference.
func (t *Tx) PutKeyPackage(ref, private []byte) error {
	sealed, err := t.seal("key_packages", ref, private)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO key_packages (ref, sealed) VALUES (?, ?)
		ON CONFLICT (ref) DO UPDATE SET sealed = excluded.sealed`, ref, sealed)
	return err
}

// DeleteKeyPackage forgets a used key package.
func (t *Tx) DeleteKeyPackage(ref []byte) error {
	_, err := t.exec(`DELETE FROM key_packages WHERE ref = ?`, ref)
	return err
}

// ShardID names a chat shard: a group's messages of one day (and, in a
// closed group, one epoch; open groups use epoch 0).
type ShardID struct {
	Group [32]byte
	Day   uint32
	Epoch uint64
}

func (id ShardID) name() []byte {
	b := append(make([]byte, 0, 52), id.Group[:]...)
	b = binary.BigEndian.AppendUint32(b, id.Day)
	return binary.BigEndian.AppendUint64(b, id.Epoch)
}

func (id ShardID) changeName(n int) []byte {
	return binary.BigEndian.AppendUint64(id.name(), uint64(n))
}

// Shard returns a shard's saved base and the changes stored since, in order;
// ok is false when the shard has no base yet.
func (t *Tx) Shard(id ShardID) (base []byte, changes [][]byte, ok bool, err error) {
	var sealed []byte
	err = t.row(`SELECT sealed FROM shards WHERE group_id = ? AND day = ? AND epoch = ?`,
		id.Group[:], id.Day, int64(id.Epoch)).Scan(&sealed)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, nil, false, err
	default:
		if base, err = t.open("shards", id.name(), sealed); err != nil {
			return nil, nil, false, err
		}
		ok = true
	}
	rows, err := t.query(`SELECT n, sealed FROM shard_changes WHERE group_id = ? AND day = ? AND epoch = ? ORDER BY n`,
		id.Group[:], id.Day, int64(id.Epoch))
	if err != nil {
		return nil, nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var n int
		if err := rows.Scan(&n, &sealed); err != nil {
			return nil, nil, false, err
		}
		c, err := t.open("shard_changes", id.changeName(n), sealed)
		if err != nil {
			return nil, nil, false, err
		}
		changes = append(changes, c)
	}
	return base, changes, ok, rows.Err()
}

// PutShard stores a shard's saved base, replacing the base and the changes
// it folds in.
func (t *Tx) PutShard(id ShardID, base []byte) error {
	sealed, err := t.seal("shards", id.name(), base)
	if err != nil {
		return err
	}
	if _, err := t.exec(`INSERT INTO shards (group_id, day, epoch, sealed) VALUES (?, ?, ?, ?)
		ON CONFLICT (group_id, day, epoch) DO UPDATE SET sealed = excluded.sealed`,
		id.Group[:], id.Day, int64(id.Epoch), sealed); err != nil {
		return err
	}
	_, err = t.exec(`DELETE FROM shard_changes WHERE group_id = ? AND day = ? AND epoch = ?`, id.Group[:], id.Day, int64(id.Epoch))
	return err
}

// AddShardChange stores change n (0, 1, … since the base) of a shard.
func (t *Tx) AddShardChange(id ShardID, n int, change []byte) error {
	sealed, err := t.seal("shard_changes", id.changeName(n), change)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO shard_changes (group_id, day, epoch, n, sealed) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (group_id, day, epoch, n) DO UPDATE SET sealed = excluded.sealed`,
		id.Group[:], id.Day, int64(id.Epoch), n, sealed)
	return err
}

// Shards lists the stored shards of a group (those with a base).
func (t *Tx) Shards(group [32]byte) ([]ShardID, error) {
	rows, err := t.query(`SELECT day, epoch FROM shards WHERE group_id = ? ORDER BY day, epoch`, group[:])
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ShardID
	for rows.Next() {
		var day uint32
		var epoch int64
		if err := rows.Scan(&day, &epoch); err != nil {
			return nil, err
		}
		out = append(out, ShardID{Group: group, Day: day, Epoch: uint64(epoch)})
	}
	return out, rows.Err()
}

// AllShards lists every stored shard (those with a base or stored changes).
func (t *Tx) AllShards() ([]ShardID, error) {
	rows, err := t.query(`SELECT group_id, day, epoch FROM shards UNION SELECT group_id, day, epoch FROM shard_changes ORDER BY 1, 2, 3`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ShardID
	for rows.Next() {
		var g []byte
		var id ShardID
		var epoch int64
		if err := rows.Scan(&g, &id.Day, &epoch); err != nil {
			return nil, err
		}
		copy(id.Group[:], g)
		id.Epoch = uint64(epoch)
		out = append(out, id)
	}
	return out, rows.Err()
}

// AddRosterOp stores the roster operation with index idx (1 for the first
// one applied); an index already stored keeps its operation.
func (t *Tx) AddRosterOp(idx int, op []byte) error {
	_, err := t.exec(`INSERT OR IGNORE INTO roster_ops (idx, bytes) VALUES (?, ?)`, idx, op)
	return err
}

// RosterOps returns the stored roster operations in order.
func (t *Tx) RosterOps() ([][]byte, error) {
	rows, err := t.query(`SELECT bytes FROM roster_ops ORDER BY idx`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var op []byte
		if err := rows.Scan(&op); err != nil {
			return nil, err
		}
		out = append(out, op)
	}
	return out, rows.Err()
}

func (t *Tx) seal(table string, name, v []byte) ([]byte, error) {
	s, err := t.sealer()
	if err != nil {
		return nil, err
	}
	return s.seal(table, name, v)
}

func (t *Tx) open(table string, name, sealed []byte) ([]byte, error) {
	s, err := t.sealer()
	if err != nil {
		return nil, err
	}
	return s.open(table, name, sealed)
}
