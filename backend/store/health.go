package store

import (
	"encoding/binary"
	"fmt"
)

// The health check's history (schema 0006): time-keyed sealed rows, newest
// kept. Values are the engine's encodings.

// Kept rows per table: a year of weekly runs; at most hourly storage
// samples for about two months.
const (
	KeptHealthRuns     = 52
	KeptStorageSamples = 1500
)

// PutHealthRun stores the report of the run at atMs (Unix ms) and drops the
// oldest beyond KeptHealthRuns.
func (t *Tx) PutHealthRun(atMs int64, report []byte) error {
	return t.putTimed("health_runs", atMs, report, KeptHealthRuns)
}

// HealthRuns returns up to n stored reports, newest first.
func (t *Tx) HealthRuns(n int) ([][]byte, error) { return t.timed("health_runs", n, true) }

// PutStorageSample stores the storage figures read at atMs and drops the
// oldest beyond KeptStorageSamples.
func (t *Tx) PutStorageSample(atMs int64, sample []byte) error {
	return t.putTimed("storage_samples", atMs, sample, KeptStorageSamples)
}

// StorageSamples returns up to n stored samples, oldest first.
func (t *Tx) StorageSamples(n int) ([][]byte, error) { return t.timed("storage_samples", n, false) }

func timeName(atMs int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(atMs)) }

func (t *Tx) putTimed(table string, atMs int64, v []byte, keep int) error {
	if atMs < 0 {
		return fmt.Errorf("store: %s row at %d ms before 1970", table, atMs)
	}
	sealed, err := t.seal(table, timeName(atMs), v)
	if err != nil {
		return err
	}
	if _, err := t.exec(`INSERT INTO `+table+` (at_ms, sealed) VALUES (?, ?)
		ON CONFLICT (at_ms) DO UPDATE SET sealed = excluded.sealed`, atMs, sealed); err != nil {
		return err
	}
	_, err = t.exec(`DELETE FROM `+table+` WHERE at_ms NOT IN (SELECT at_ms FROM `+table+` ORDER BY at_ms DESC LIMIT ?)`, keep)
	return err
}

// timed returns the newest n rows of table, newest first or oldest first.
func (t *Tx) timed(table string, n int, newestFirst bool) ([][]byte, error) {
	rows, err := t.query(`SELECT at_ms, sealed FROM `+table+` ORDER BY at_ms DESC LIMIT ?`, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var at int64
		var sealed []byte
		if err := rows.Scan(&at, &sealed); err != nil {
			return nil, err
		}
		v, err := t.open(table, timeName(at), sealed)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !newestFirst {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out, nil
}
