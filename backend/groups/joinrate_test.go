package groups

import (
	"errors"
	"testing"
	"time"
)

// The 33rd join of one principal within an hour (of its signed times) is
// refused, another principal's is not, an hour later the first may join
// again, and a join dated before the previous one is refused.
func TestJoinRate(t *testing.T) {
	r := JoinRate{}
	floor := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	for i := 0; i < MaxSelfJoinsPerHour; i++ {
		if err := r.Note("aa", t0.Add(time.Duration(i)*time.Minute), floor); err != nil {
			t.Fatalf("join %d: %v", i+1, err)
		}
	}
	if err := r.Note("aa", t0.Add(40*time.Minute), floor); !errors.Is(err, ErrSelfJoinRate) {
		t.Fatalf("33rd join: %v", err)
	}
	if err := r.Note("bb", t0.Add(40*time.Minute), floor); err != nil {
		t.Fatalf("another principal: %v", err)
	}
	if err := r.Note("aa", t0.Add(2*time.Hour), floor); err != nil {
		t.Fatalf("two hours later: %v", err)
	}
	if n := len(r["aa"]); n != MaxSelfJoinsPerHour {
		t.Fatalf("kept %d entries", n)
	}
	if err := r.Note("aa", t0.Add(time.Hour), floor); !errors.Is(err, ErrSelfJoinRate) {
		t.Fatalf("a join dated back: %v", err)
	}
	if err := r.Note("cc", floor.Add(-time.Minute), floor); !errors.Is(err, ErrSelfJoinRate) {
		t.Fatalf("a join dated before the channel: %v", err)
	}
}

// Dating joins back into earlier hours, one hour per 32 joins, gains
// nothing once the first is dated: the times must go forward in log order,
// so an hour's 32 are spent for good.
func TestJoinRateNoReuse(t *testing.T) {
	r := JoinRate{}
	floor := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	refused := 0
	for i := 0; i < 3*MaxSelfJoinsPerHour; i++ {
		// A loop that alternates its dates between two hours.
		at := t0
		if i%2 == 1 {
			at = t0.Add(-2 * time.Hour)
		}
		if err := r.Note("aa", at, floor); err != nil {
			refused++
		}
	}
	if accepted := 3*MaxSelfJoinsPerHour - refused; accepted > MaxSelfJoinsPerHour {
		t.Fatalf("%d joins accepted within one dated hour", accepted)
	}
}

// A join without a time (JoinData version 1) counts at the principal's
// previous time, so such joins cannot escape the count.
func TestJoinRateUndated(t *testing.T) {
	r := JoinRate{}
	floor := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < MaxSelfJoinsPerHour; i++ {
		if err := r.Note("aa", time.Time{}, floor); err != nil {
			t.Fatalf("join %d: %v", i+1, err)
		}
	}
	if err := r.Note("aa", time.Time{}, floor); !errors.Is(err, ErrSelfJoinRate) {
		t.Fatalf("33rd undated join: %v", err)
	}
}
