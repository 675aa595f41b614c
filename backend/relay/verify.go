package relay

import (
	"sync"

	"weald/backend/internal/ed25519batch"
	"weald/backend/wire"
)

// maxPreparedKeys bounds the prepared keys a Service keeps (about 40 KB
// each); past it they are dropped and prepared again as they are used.
const maxPreparedKeys = 256

// verifyEnvelopes verifies the author signatures of the envelopes whose
// author is in keys: one envelope against its author's prepared key
// (ed25519batch.PreparedKey, the same answer as crypto/ed25519 in about
// half the time), more as Ed25519 batches, one per worker. It returns the
// index of the first envelope whose signature fails, or -1; a failed batch
// is checked one by one to name it.
func (s *Service) verifyEnvelopes(keys map[wire.ID][]byte, envs []wire.Envelope, workers int) int {
	var idx []int
	var items []ed25519batch.Item
	for i := range envs {
		key := keys[envs[i].Author]
		if key == nil {
			continue
		}
		if wire.KeyID(key) != envs[i].Author {
			return i
		}
		idx = append(idx, i)
		items = append(items, ed25519batch.Item{Pub: key, Msg: wire.SignContent(wire.LabelEnvelope, envs[i].TBS()), Sig: envs[i].Signature})
	}
	if len(items) == 1 {
		if !s.verifyOne(envs[idx[0]].Author, items[0]) {
			return idx[0]
		}
		return -1
	}
	if len(items) < 32 || workers < 1 {
		workers = 1
	}
	bad := make([]int, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*len(items)/workers, (w+1)*len(items)/workers
		bad[w] = -1
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			if ed25519batch.Verify(items[lo:hi]) {
				return
			}
			for j := lo; j < hi; j++ {
				if !ed25519batch.Verify(items[j : j+1]) {
					bad[w] = idx[j]
					return
				}
			}
		}(w)
	}
	wg.Wait()
	for _, b := range bad {
		if b >= 0 {
			return b
		}
	}
	return -1
}

// verifyOne checks one signature with the author's prepared key, preparing
// it on first use.
func (s *Service) verifyOne(author wire.ID, it ed25519batch.Item) bool {
	s.mu.Lock()
	pk := s.prepared[author]
	s.mu.Unlock()
	if pk == nil {
		var err error
		if pk, err = ed25519batch.Prepare(it.Pub); err != nil {
			return false // crypto/ed25519 refuses such a key too
		}
		s.mu.Lock()
		if len(s.prepared) >= maxPreparedKeys {
			clear(s.prepared)
		}
		s.prepared[author] = pk
		s.mu.Unlock()
	}
	return pk.Verify(it.Msg, it.Sig)
}
