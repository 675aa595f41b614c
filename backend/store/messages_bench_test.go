package store

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// benchWords is a vocabulary of pronounceable made-up words, drawn with a
// skew so that some are common and most are rare, like words of a chat.
func benchWords(r *rand.Rand, n int) []string {
	syl := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "bra", "den", "fil", "gor", "hun", "jas", "pel"}
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		out[i] = b.String()
	}
	return out
}

// BenchmarkSearch100kMessages searches a channel history of 100,000
// indexed messages for two words (issue 17: goal < 50 ms) and, as the
// baseline in the same run, finds the same messages without the index:
// opening every sealed message and scanning its text, as a search that
// only had the sealed rows would have to.
func BenchmarkSearch100kMessages(b *testing.B) {
	const n = 100_000
	s, err := Open(context.Background(), b.TempDir()+"/state.db")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(1, 2))
	vocab := benchWords(r, 5000)
	group := [32]byte{7}
	err = s.Update(context.Background(), func(tx *Tx) error {
		for i := range n {
			words := make([]string, 6+r.IntN(10))
			for j := range words {
				// Squaring skews the choice toward the start of the vocabulary.
				f := r.Float64()
				words[j] = vocab[int(f*f*float64(len(vocab)))]
			}
			m := IndexedMessage{Shard: ShardID{Group: group, Day: uint32(20000 + i/1000)}, Time: int64(i) * 60_000}
			m.ID[0], m.ID[1], m.ID[2] = byte(i>>16), byte(i>>8), byte(i)
			m.Value = []byte(strings.Join(words, " "))
			if err := tx.PutMessage(m, string(m.Value)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	query := vocab[40] + " " + vocab[900]
	var hits int
	b.ResetTimer()
	for b.Loop() {
		err := s.View(context.Background(), func(tx *Tx) error {
			ms, err := tx.SearchMessages(query, &group, 50)
			hits = len(ms)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	indexed := b.Elapsed().Seconds() * 1000 / float64(b.N)

	// Baseline: open every row and scan its words.
	start := time.Now()
	scanHits := 0
	err = s.View(context.Background(), func(tx *Tx) error {
		var cur *MessageCursor
		for {
			page, err := tx.MessagesBefore(group, cur, 5000)
			if err != nil || len(page) == 0 {
				return err
			}
			for _, m := range page {
				if hasAll(Words(string(m.Value)), Words(query)) {
					scanHits++
				}
			}
			last := page[len(page)-1]
			cur = &MessageCursor{Time: last.Time, ID: last.ID}
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	scan := float64(time.Since(start).Microseconds()) / 1000
	if hits == 0 || scanHits < hits || hits < min(scanHits, 50) {
		b.Fatalf("indexed search found %d, the scan %d", hits, scanHits)
	}
	b.ReportMetric(indexed, "ms/search")
	b.ReportMetric(scan, "ms/scan-baseline")
	b.ReportMetric(indexed/scan, "search/scan")
	b.ReportMetric(float64(scanHits), "matches")
}

// hasAll is the search's rule: every wanted word, the last one whole or
// as a prefix.
func hasAll(words, want []string) bool {
	for i, w := range want {
		found := false
		for _, x := range words {
			if x == w || i == len(want)-1 && strings.HasPrefix(x, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
