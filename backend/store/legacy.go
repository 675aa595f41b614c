package store

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"weald/backend/errcode"
)

// ErrUnknownKey is returned by migration 0002 for a value of schema 0001
// that it does not know where to put; the database is left as it was.
var ErrUnknownKey = errcode.New("store/unknown_key", "the local state holds a value this version of Weald does not know; it was left as it was")

// moveKV is the Go part of migration 0002: it makes the database's key and
// moves every value of the kv table (schema 0001) to its typed table,
// sealed. Keys of schema 0001:
//
//	meta                                       → records "workspace"
//	alerts                                     → records "alerts"
//	group/<group hex>                          → groups
//	kp/<ref hex>                               → key_packages
//	shard/<group hex>/<day>/<epoch>            → shards
//	shardlog/<group hex>/<day>/<epoch>/<n>     → shard_changes
//
// The old plaintext pages are then gone from the file: 0003 drops the
// tables and Open rewrites the file (VACUUM) after a move.
func moveKV(t *Tx) error {
	if _, err := t.sealer(); err != nil {
		return err
	}
	rows, err := t.query(`SELECT k, v FROM kv ORDER BY k`)
	if err != nil {
		return err
	}
	type kv struct {
		k string
		v []byte
	}
	var all []kv
	for rows.Next() {
		var r kv
		if err := rows.Scan(&r.k, &r.v); err != nil {
			rows.Close()
			return err
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range all {
		if err := moveOne(t, r.k, r.v); err != nil {
			return err
		}
	}
	t.s.moved = len(all) > 0
	return nil
}

// legacyKey is a parsed kv key of schema 0001.
type legacyKey struct {
	record *Record // meta, alerts
	group  *[32]byte
	ref    []byte   // kp/
	shard  *ShardID // shard/ and shardlog/
	n      int      // shardlog/: the change's number
	change bool     // shardlog/
}

// parseLegacyKey parses a kv key of schema 0001 (the list at moveKV).
func parseLegacyKey(k string) (legacyKey, bool) {
	switch k {
	case "meta":
		return legacyKey{record: &RecordWorkspace}, true
	case "alerts":
		return legacyKey{record: &RecordAlerts}, true
	}
	kind, rest, _ := strings.Cut(k, "/")
	parts := strings.Split(rest, "/")
	switch {
	case kind == "group" && len(parts) == 1:
		id, ok := id32(parts[0])
		return legacyKey{group: &id}, ok
	case kind == "kp" && len(parts) == 1:
		ref, err := hex.DecodeString(parts[0])
		return legacyKey{ref: ref}, err == nil && len(ref) > 0
	case kind == "shard" && len(parts) == 3:
		id, ok := shardID(parts)
		return legacyKey{shard: &id}, ok
	case kind == "shardlog" && len(parts) == 4:
		id, ok := shardID(parts[:3])
		n, err := strconv.Atoi(parts[3])
		return legacyKey{shard: &id, n: n, change: true}, ok && err == nil && n >= 0
	}
	return legacyKey{}, false
}

func moveOne(t *Tx, k string, v []byte) error {
	lk, ok := parseLegacyKey(k)
	switch {
	case !ok:
		return fmt.Errorf("%w (key %q)", ErrUnknownKey, k)
	case lk.record != nil:
		return t.PutRecord(*lk.record, v)
	case lk.group != nil:
		return t.PutGroup(*lk.group, v)
	case lk.ref != nil:
		return t.PutKeyPackage(lk.ref, v)
	case lk.change:
		return t.AddShardChange(*lk.shard, lk.n, v)
	default: // a shard's base, without dropping the changes moved beside it
		id := *lk.shard
		sealed, err := t.seal("shards", id.name(), v)
		if err != nil {
			return err
		}
		_, err = t.exec(`INSERT INTO shards (group_id, day, epoch, sealed) VALUES (?, ?, ?, ?)`,
			id.Group[:], id.Day, int64(id.Epoch), sealed)
		return err
	}
}

func id32(s string) ([32]byte, bool) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		return [32]byte{}, false
	}
	return [32]byte(b), true
}

func shardID(parts []string) (ShardID, bool) {
	g, ok := id32(parts[0])
	day, err1 := strconv.ParseUint(parts[1], 10, 32)
	epoch, err2 := strconv.ParseUint(parts[2], 10, 64)
	if !ok || err1 != nil || err2 != nil {
		return ShardID{}, false
	}
	return ShardID{Group: g, Day: uint32(day), Epoch: epoch}, true
}
