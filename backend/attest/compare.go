package attest

// Mine is the comparing client's own view: how much of the roster it
// holds, the roster head after any length it can name, and per group it
// is a member of what it has processed.
type Mine struct {
	RosterLength uint64
	// RosterHeadAt returns the head after the first n operations, if this
	// client can say (false: it does not keep that far back).
	RosterHeadAt func(n uint64) ([32]byte, bool)
	Groups       map[[32]byte]Processed
}

// Processed is what this client processed of one group: its highest seq
// and the envelope hashes of recent seqs (Recent[Seq] included when there
// was an envelope at Seq).
type Processed struct {
	Seq    uint64
	Recent map[uint64][32]byte
}

// Disagreement is one way an attestation and this client's view cannot
// both be what an honest relay showed.
type Disagreement struct {
	// Group is nil for the roster.
	Group *[32]byte
	// Behind: the attester processed Theirs and this client, after a sync
	// that started after it read the attestation, only Mine (the relay
	// serves it less than it served the attester). Otherwise a fork: at
	// the same position the two saw different operations or envelopes.
	Behind bool
	Theirs uint64
	Mine   uint64
}

// Compare lists the disagreements between a and mine. Groups this client
// is not in, and seqs it no longer holds a hash of, are not compared.
func Compare(a *Attestation, mine Mine) []Disagreement {
	var out []Disagreement
	switch {
	case a.RosterLength > mine.RosterLength:
		out = append(out, Disagreement{Behind: true, Theirs: a.RosterLength, Mine: mine.RosterLength})
	case mine.RosterHeadAt != nil:
		if h, ok := mine.RosterHeadAt(a.RosterLength); ok && h != a.RosterHead {
			out = append(out, Disagreement{Theirs: a.RosterLength, Mine: mine.RosterLength})
		}
	}
	for _, g := range a.Groups {
		p, ok := mine.Groups[g.Group]
		if !ok {
			continue
		}
		id := g.Group
		if g.Seq > p.Seq {
			out = append(out, Disagreement{Group: &id, Behind: true, Theirs: g.Seq, Mine: p.Seq})
			continue
		}
		if h, ok := p.Recent[g.Seq]; ok && g.Hash != ([32]byte{}) && h != g.Hash {
			out = append(out, Disagreement{Group: &id, Theirs: g.Seq, Mine: p.Seq})
		}
	}
	return out
}
