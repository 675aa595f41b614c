package relay

import "weald/backend/wire"

// claimHashes fills hashes with each envelope's hash as the batch itself
// claims it: the prev of the next envelope of the same author chain in the
// batch. Only an envelope no later one names (its chain's last in the batch)
// is hashed here. It returns which entries were claimed rather than computed;
// claimsHold must confirm them before anything that used them commits.
//
// A batch is almost always one author continuing one chain, so on the fast
// path (design/gaps.md "Relay protocol"; docs/protocol/wire.md "The fast
// path") this leaves one hash of a hundred before the inserts; the rest are
// confirmed after them, while the signature check, which takes longer than
// the inserts, is still running on another core.
func claimHashes(envs []wire.Envelope, hashes []wire.ID) []bool {
	claimed := make([]bool, len(envs))
	last := map[chainRef]int{}
	for i := range envs {
		k := chainRef{envs[i].Group, envs[i].Author}
		if j, ok := last[k]; ok {
			hashes[j], claimed[j] = envs[i].Prev, true
		}
		last[k] = i
	}
	for i := range envs {
		if !claimed[i] {
			hashes[i] = envs[i].Hash()
		}
	}
	return claimed
}

// claimsHold reports whether every claimed hash is the envelope's hash. When
// one is not, an envelope's prev does not name its predecessor in the batch
// (a fork, or bytes changed in transit), and the general path, with hashes
// computed, names the refusal.
func claimsHold(envs []wire.Envelope, hashes []wire.ID, claimed []bool) bool {
	for i := range envs {
		if claimed[i] && envs[i].Hash() != hashes[i] {
			return false
		}
	}
	return true
}

// computeHashes is every envelope's hash.
func computeHashes(envs []wire.Envelope) []wire.ID {
	hashes := make([]wire.ID, len(envs))
	for i := range envs {
		hashes[i] = envs[i].Hash()
	}
	return hashes
}
