package relay

import (
	"weald/backend/relay/store"
	"weald/backend/wire"
)

// maxKnownHeads bounds the heads a Service remembers; past it they are
// forgotten and relearned from the general path.
const maxKnownHeads = 1 << 17

// groupKey names a group: the relay keys groups by workspace and group id,
// so the same id in two workspaces is two unrelated groups.
type groupKey struct{ ws, group wire.ID }

// chainRef names an author chain: an author in a group.
type chainRef struct{ group, author wire.ID }

// knownGroup is a group's head and author-chain heads as this Service's own
// commits left them, and as the fast sends it has planned will leave them
// (a plan advances them at once, so concurrent sends plan the following
// seqs; a plan that does not commit forgets the group). Chains are known
// only while the Service has seen every envelope since: a commit whose
// first seq does not follow the known head (another relay process accepted
// in between) forgets them.
type knownGroup struct {
	head   uint64
	chains map[wire.ID]store.AuthorHead
}

// fastPlan returns the request for store.Store.Send if the send is the
// common case: every author is a key of the cached access set (so the
// concurrent verification covers every envelope), no envelope is of a
// relay-visible kind, every group is known to belong to ws, and every
// envelope continues its author's chain from heads this Service accepted
// itself. The store's gate then checks, under the workspace lock, that the
// set is still current, the budget, and that each group's head is still the
// one the plan builds on; a stale head is caught there (or by the unique
// keys). Otherwise nil: the general path reads the heads and names any
// refusal.
func (s *Service) fastPlan(ws wire.ID, pre *cachedSet, envs []wire.Envelope, hashes []wire.ID) *store.SendRequest {
	if pre == nil {
		return nil
	}
	r := &store.SendRequest{Workspace: ws, AccessVersion: pre.version, MaxLogBytes: s.maxLogBytes, Now: s.unix(),
		Envelopes: envs, Hashes: hashes, Seqs: make([]uint64, len(envs)), Heads: map[wire.ID]uint64{}}
	heads := map[wire.ID]uint64{}
	chains := map[chainRef]store.AuthorHead{}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range envs {
		e := &envs[i]
		if pre.keys[e.Author] == nil || e.Kind.RelayVisible() || (pre.kinds[e.Author] == wire.PrincipalAgent && e.Kind != wire.KindContent) {
			return nil // the general path decides (and refuses an agent's non-content)
		}
		head, ok := heads[e.Group]
		if !ok {
			kg := s.known[groupKey{ws, e.Group}]
			if kg == nil || !s.exists[groupKey{ws, e.Group}] {
				return nil
			}
			head = kg.head
			r.Heads[e.Group] = head
		}
		k := chainRef{e.Group, e.Author}
		ch, ok := chains[k]
		if !ok {
			if ch, ok = s.known[groupKey{ws, e.Group}].chains[e.Author]; !ok {
				return nil
			}
		}
		if e.Ctr != ch.Ctr+1 || e.Prev != ch.Hash {
			return nil
		}
		head++
		heads[e.Group], chains[k] = head, store.AuthorHead{Ctr: e.Ctr, Hash: hashes[i]}
		r.Seqs[i] = head
	}
	for g, head := range heads {
		s.known[groupKey{ws, g}].head = head
	}
	for k, ch := range chains {
		s.known[groupKey{ws, k.group}].chains[k.author] = ch
	}
	return r
}

// forgetPlan drops what a plan that did not commit through store.Send had
// advanced: its groups are relearned from the general path.
func (s *Service) forgetPlan(r *store.SendRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for g := range r.Heads {
		delete(s.known, groupKey{r.Workspace, g})
	}
}

// fastAcks are the acks and accepted envelopes of a plan store.Store.Send stored.
func fastAcks(r *store.SendRequest) ([]wire.AckItem, []wire.SeqEnvelope) {
	acks, accepted := make([]wire.AckItem, len(r.Envelopes)), make([]wire.SeqEnvelope, len(r.Envelopes))
	for i := range r.Envelopes {
		acks[i] = wire.AckItem{Group: r.Envelopes[i].Group, Seq: r.Seqs[i], Hash: r.Hashes[i]}
		accepted[i] = wire.SeqEnvelope{Seq: r.Seqs[i], Envelope: r.Envelopes[i]}
	}
	return acks, accepted
}

// learnHeads records the group and chain heads a committed send reached.
// Heads only move forward: a send that committed earlier but reports later
// does not move them back (and its chains are forgotten, as for a gap).
func (s *Service) learnHeads(ws wire.ID, acks []wire.AckItem, accepted []wire.SeqEnvelope) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.known)+len(acks) > maxKnownHeads {
		s.known = map[groupKey]*knownGroup{}
	}
	first := map[wire.ID]bool{}
	for i := range acks {
		e := &accepted[i].Envelope
		kg := s.known[groupKey{ws, e.Group}]
		if kg == nil {
			kg = &knownGroup{chains: map[wire.ID]store.AuthorHead{}}
			s.known[groupKey{ws, e.Group}] = kg
		}
		if !first[e.Group] {
			first[e.Group] = true
			if kg.head != acks[i].Seq-1 {
				clear(kg.chains) // envelopes this Service did not see
			}
		}
		if acks[i].Seq > kg.head {
			kg.head = acks[i].Seq
		}
		if old, ok := kg.chains[e.Author]; !ok || e.Ctr > old.Ctr {
			kg.chains[e.Author] = store.AuthorHead{Ctr: e.Ctr, Hash: acks[i].Hash}
		}
		if len(kg.chains) > maxKnownHeads {
			clear(kg.chains)
		}
	}
}
