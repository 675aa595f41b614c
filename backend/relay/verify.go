package relay

import (
	"crypto/ed25519"
	"sync"

	"weald/backend/internal/ed25519batch"
	"weald/backend/wire"
)

// maxPreparedKeys bounds the prepared keys a Service keeps (about 40 KB
// each); past it they are dropped and prepared again as they are used.
const maxPreparedKeys = 256

// verifyEnvelopes verifies the author signatures of the envelopes whose
// author is in keys, each exactly as crypto/ed25519.Verify (and so every
// client) judges it: against its author's prepared key
// (ed25519batch.PreparedKey, about 55 % of a crypto/ed25519 check), or with
// crypto/ed25519 for an author whose key is not prepared yet and signs
// fewer than prepareFrom of them. Large requests are split over workers. It
// returns the index of the first envelope whose signature fails, or -1.
//
// There is no multi-scalar-multiplication batch here any more: it checked
// the cofactored equation and so accepted signatures with a small-order
// component in R, which clients refuse (docs/security.md §7).
func (s *Service) verifyEnvelopes(keys map[wire.ID][]byte, envs []wire.Envelope, workers int) int {
	var idx []int
	var items []ed25519batch.Item
	uses := map[wire.ID]int{}
	for i := range envs {
		key := keys[envs[i].Author]
		if key == nil {
			continue
		}
		if wire.KeyID(key) != envs[i].Author {
			return i
		}
		idx = append(idx, i)
		uses[envs[i].Author]++
		items = append(items, ed25519batch.Item{Pub: key, Msg: wire.SignContent(wire.LabelEnvelope, envs[i].TBS()), Sig: envs[i].Signature})
	}
	if len(items) == 1 {
		// A single-envelope send: its author likely sends again, so its
		// key is worth preparing now.
		uses[envs[idx[0]].Author] = prepareFrom
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
			for j := lo; j < hi; j++ {
				author := envs[idx[j]].Author
				if !s.verifyOne(author, items[j], uses[author]) {
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

// prepareFrom is how many signatures of one author in a request make
// preparing its key pay (the table costs about two checks).
const prepareFrom = 3

// verifyOne checks one signature with the author's prepared key, preparing
// it on first use when the author signs at least prepareFrom of the
// request's envelopes (uses), with crypto/ed25519 otherwise.
func (s *Service) verifyOne(author wire.ID, it ed25519batch.Item, uses int) bool {
	s.mu.Lock()
	pk := s.prepared[author]
	s.mu.Unlock()
	if pk == nil && uses < prepareFrom {
		return len(it.Pub) == ed25519.PublicKeySize && ed25519.Verify(ed25519.PublicKey(it.Pub), it.Msg, it.Sig)
	}
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
