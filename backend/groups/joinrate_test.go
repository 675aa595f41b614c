package groups

import (
	"errors"
	"testing"
	"time"
)

// The 33rd join of one principal within an hour is refused, another
// principal's is not, and an hour later the first may join again.
func TestJoinRate(t *testing.T) {
	r := JoinRate{}
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	for i := 0; i < MaxSelfJoinsPerHour; i++ {
		if err := r.Note("aa", t0.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatalf("join %d: %v", i+1, err)
		}
	}
	if err := r.Note("aa", t0.Add(40*time.Minute)); !errors.Is(err, ErrSelfJoinRate) {
		t.Fatalf("33rd join: %v", err)
	}
	if err := r.Note("bb", t0.Add(40*time.Minute)); err != nil {
		t.Fatalf("another principal: %v", err)
	}
	if err := r.Note("aa", t0.Add(2*time.Hour)); err != nil {
		t.Fatalf("two hours later: %v", err)
	}
	if n := len(r["aa"]); n != 1 {
		t.Fatalf("kept %d old entries", n-1)
	}
}
