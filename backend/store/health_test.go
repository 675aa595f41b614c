package store

import (
	"context"
	"fmt"
	"testing"
)

// Health runs and storage samples are kept sealed, newest first or oldest
// first as asked, and bounded: the oldest rows go.
func TestHealthRunsAndSamplesBounded(t *testing.T) {
	s := openTest(t)
	update(t, s, func(tx *Tx) error {
		for i := range KeptHealthRuns + 5 {
			if err := tx.PutHealthRun(int64(1000+i), fmt.Appendf(nil, "run %d", i)); err != nil {
				return err
			}
		}
		for i := range KeptStorageSamples + 3 {
			if err := tx.PutStorageSample(int64(i), fmt.Appendf(nil, "s%d", i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err := s.Update(context.Background(), func(tx *Tx) error { return tx.PutHealthRun(-1, nil) }); err == nil {
		t.Fatal("a run before 1970 was stored")
	}
	err := s.View(context.Background(), func(tx *Tx) error {
		runs, err := tx.HealthRuns(1000)
		if err != nil {
			return err
		}
		if len(runs) != KeptHealthRuns || string(runs[0]) != fmt.Sprintf("run %d", KeptHealthRuns+4) || string(runs[len(runs)-1]) != "run 5" {
			return fmt.Errorf("runs: %d, newest %q, oldest %q", len(runs), runs[0], runs[len(runs)-1])
		}
		ss, err := tx.StorageSamples(2)
		if err != nil {
			return err
		}
		if len(ss) != 2 || string(ss[0]) != fmt.Sprintf("s%d", KeptStorageSamples+1) || string(ss[1]) != fmt.Sprintf("s%d", KeptStorageSamples+2) {
			return fmt.Errorf("samples: %q", ss)
		}
		all, err := tx.StorageSamples(1 << 20)
		if err != nil || len(all) != KeptStorageSamples || string(all[0]) != "s3" {
			return fmt.Errorf("all samples: %d %v", len(all), err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Sealed: the table holds no plaintext.
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM health_runs WHERE instr(sealed, 'run') > 0`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d plaintext rows (%v)", n, err)
	}
}
