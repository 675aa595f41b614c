package relay

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sync"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// errClaims aborts a fast send whose batch claimed a hash (claimHashes) that
// is not the envelope's.
var errClaims = errors.New("relay: a claimed envelope hash does not hold")

// groupState is a group's head as the batch being accepted moves it.
type groupState struct {
	head    uint64
	authors map[wire.ID]store.AuthorHead
	absent  map[wire.ID]bool // authors known to have no head in the group
}

// Send accepts a batch of envelopes, all or none, in one transaction
// (design/gaps.md "Relay protocol"). For each envelope, in order: the kind is
// known; the author is a key of the current access set (or the key a grant
// connection is bound to); the author signature verifies; the author chain
// continues (ctr = previous + 1 and prev = hash of the previous envelope;
// otherwise chain/gap, chain/fork or chain/replay); relay-visible kinds
// verify. The relay then assigns seq per group. After the inserts the
// trigger-maintained byte counter must be within the budget, or the whole
// batch is refused with quota/log_budget_exhausted {limit_bytes}. The acks
// are returned only after the commit.
//
// A send that continues chains this Service accepted itself is first tried
// on the fast path (fastPlan plans the seqs in memory, store.Store.Send
// checks a gate and inserts in one transaction); whatever it does not
// take, the general path (acceptBatch) decides, with the same codes.
func (s *Service) Send(ctx context.Context, ws wire.ID, p wire.AuthOK, envs []wire.Envelope) ([]wire.AckItem, []wire.SeqEnvelope, error) {
	if len(envs) == 0 {
		return nil, nil, wire.Errorf(wire.CodeMalformed, "A send carries at least one envelope.")
	}
	if len(envs) > s.maxBatch {
		return nil, nil, wire.Errorf(wire.CodeLimitBatchSize, "Too many envelopes in one send; split the batch.", wire.U("limit", uint64(s.maxBatch)))
	}
	s.sending.Add(1)
	defer s.sending.Add(-1)
	var total uint64
	for i := range envs {
		if !envs[i].Kind.Known() {
			return nil, nil, wire.Errorf(wire.CodeUnknownKind, "An envelope has a kind this relay does not know.",
				wire.U("index", uint64(i)), wire.U("kind", uint64(envs[i].Kind)))
		}
		total += uint64(len(envs[i].CT))
	}
	// Verify signatures against the cached current set. A key id names one
	// public key, so a signature that fails here fails under every version
	// of the set. The result is awaited before anything commits.
	s.mu.Lock()
	pre := s.cache[ws]
	s.mu.Unlock()
	firstBad := -1
	var wg sync.WaitGroup
	var hashes []wire.ID
	var claimed []bool // hashes taken from the batch's own prevs (claimHashes)
	alongside := pre != nil && len(envs) > 1 && s.st.InProcess()
	if alongside {
		// Alongside everything else, the in-process transaction included:
		// the database work and the verification overlap, and the
		// transaction keeps a core. The check is the longer of the two,
		// so the hashes the batch claims are confirmed on this goroutine,
		// once its inserts are done.
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Under load, the checks of sends waiting for the transaction
			// would otherwise share the cores with the one inserting.
			s.checking <- struct{}{}
			defer func() { <-s.checking }()
			firstBad = s.verifyEnvelopes(pre.keys, envs, runtime.GOMAXPROCS(0)-1)
		}()
		// A new goroutine waits in this P's run queue until this one
		// blocks, which SQLite's in-process inserts do not do until
		// commit: yield once so it starts now, on this P, while an idle P
		// picks this goroutine up.
		runtime.Gosched()
	}
	if pre != nil && len(envs) > 1 {
		// A batch that may take the fast path: its hashes are claimed now
		// and confirmed in the fast path's await, after the inserts (in
		// process) or while the database server runs them.
		hashes = make([]wire.ID, len(envs))
		claimed = claimHashes(envs, hashes)
	} else {
		hashes = computeHashes(envs)
	}
	plan := s.fastPlan(ws, pre, envs, hashes)
	deferred := false // checked by the first awaitSignatures
	busy := s.sending.Load() > 1
	if plan != nil {
		plan.Busy = busy
	}
	switch {
	case pre == nil || alongside:
	case len(envs) == 1:
		// One signature, checked here: handing it to another goroutine
		// costs more than it saves, since the goroutine that resumes after
		// the database answers then waits for a free P.
		firstBad = s.verifyEnvelopes(pre.keys, envs, 1)
	case plan != nil && !busy:
		// A fast batch to a database server, and no other send in
		// flight: the store sends its statement, then awaits, and the
		// check runs on every core while the server works (holding the
		// workspace lock meanwhile costs nobody).
		deferred = true
		plan.Overlap = true
	case plan != nil:
		// Other sends are in flight: checked first, so the statement
		// holds the workspace lock only while it runs.
		firstBad = s.verifyEnvelopes(pre.keys, envs, runtime.GOMAXPROCS(0))
	default:
		// The general path on a database server: verified while its
		// statements wait on the network.
		wg.Add(1)
		go func() {
			defer wg.Done()
			firstBad = s.verifyEnvelopes(pre.keys, envs, runtime.GOMAXPROCS(0))
		}()
	}
	// awaitSignatures returns the refusal for the first bad signature at or
	// below index limit.
	awaitSignatures := func(limit int) error {
		if deferred {
			deferred = false
			firstBad = s.verifyEnvelopes(pre.keys, envs, runtime.GOMAXPROCS(0))
		}
		wg.Wait()
		if firstBad >= 0 && firstBad <= limit {
			return badEnvelopeSignature(firstBad)
		}
		return nil
	}

	if plan != nil {
		ok, err := s.st.Send(ctx, *plan, func() error {
			if claimed != nil && !claimsHold(envs, hashes, claimed) {
				return errClaims // before a signature: the general path names the first refusal
			}
			return awaitSignatures(len(envs))
		})
		if err == nil && ok {
			s.fastSends.Add(1)
			acks, accepted := fastAcks(plan)
			return acks, accepted, nil
		}
		s.forgetPlan(plan)
		if err != nil && !errors.Is(err, store.ErrConflict) && !errors.Is(err, errClaims) {
			wg.Wait()
			return nil, nil, err
		}
		// The gate did not hold (the access set changed, the budget, a
		// head), a seq was taken or a claimed hash was not the
		// envelope's: nothing was stored, and the general path decides.
	}
	if claimed != nil {
		hashes = computeHashes(envs)
	}

	var acks []wire.AckItem
	var accepted []wire.SeqEnvelope
	err := s.st.Update(ctx, func(tx store.Tx) error {
		acks, accepted = nil, nil
		var preKeys map[wire.ID][]byte
		if pre != nil {
			preKeys = pre.keys
		}
		i, err := s.acceptBatch(ctx, tx, ws, p, envs, hashes, total, preKeys, &acks, &accepted)
		if sigErr := awaitSignatures(i); sigErr != nil {
			return sigErr
		}
		return err
	})
	if err == nil {
		s.generalSends.Add(1)
		s.learnHeads(ws, acks, accepted)
	}
	wg.Wait()
	if err != nil {
		return nil, nil, err
	}
	return acks, accepted, nil
}

// acceptBatch runs the accept checks and inserts of Send inside tx. On a
// refusal it returns the index of the envelope refused (len(envs) for a
// batch-level refusal).
func (s *Service) acceptBatch(ctx context.Context, tx store.Tx, ws wire.ID, p wire.AuthOK, envs []wire.Envelope, hashes []wire.ID,
	total uint64, preKeys map[wire.ID][]byte, acks *[]wire.AckItem, accepted *[]wire.SeqEnvelope) (int, error) {
	// One statement locks the workspace and reads the first envelope's
	// group and author heads.
	w, firstHead, firstAuthor, firstFound, err := tx.LockForSend(ctx, ws, envs[0].Group, envs[0].Author)
	if errors.Is(err, store.ErrNotFound) {
		return len(envs), errUnknownWorkspace(ws)
	}
	if err != nil {
		return len(envs), err
	}
	if s.maxLogBytes > 0 && uint64(w.LogBytes)+total > s.maxLogBytes {
		return len(envs), budgetError(s.maxLogBytes)
	}
	c, err := s.currentSet(ctx, tx, ws, w.AccessVersion)
	if err != nil {
		return len(envs), err
	}
	now := s.unix()
	groups := map[wire.ID]*groupState{}
	var order []wire.ID
	for i := range envs {
		e := &envs[i]
		key, err := s.authorKey(ctx, tx, ws, c, p, e.Author, i)
		if err != nil {
			return i, err
		}
		if c.kinds[e.Author] == wire.PrincipalAgent && e.Kind != wire.KindContent {
			return i, agentKindError(i, e.Kind)
		}
		if preKeys[e.Author] == nil {
			// Not covered by the concurrent verification (which touches only
			// the entries of authors in preKeys): verify here.
			if wire.VerifyEnvelope(e, key) != nil {
				return i, badEnvelopeSignature(i)
			}
		}
		g := groups[e.Group]
		if g == nil {
			var hint *uint64
			if i == 0 {
				hint = &firstHead
			}
			g, err = s.loadGroup(ctx, tx, ws, e.Group, now, hint)
			if err != nil {
				return i, err
			}
			if i == 0 {
				if firstFound {
					g.authors[e.Author] = firstAuthor
				} else {
					g.absent[e.Author] = true
				}
			}
			groups[e.Group] = g
			order = append(order, e.Group)
		}
		if err := checkChain(ctx, tx, ws, g, e, hashes[i], i); err != nil {
			return i, err
		}
		seq := g.head + 1
		if e.Kind.RelayVisible() {
			if err := s.acceptVisible(ctx, tx, ws, c, e, key, seq, hashes[i], i); err != nil {
				return i, err
			}
		}
		row := store.EnvelopeRow{Seq: seq, Envelope: *e, Hash: hashes[i], AcceptedAt: now}
		if err := tx.InsertEnvelope(ctx, ws, &row); err != nil {
			return i, err
		}
		g.head = seq
		g.authors[e.Author] = store.AuthorHead{Ctr: e.Ctr, Hash: hashes[i]}
		*acks = append(*acks, wire.AckItem{Group: e.Group, Seq: seq, Hash: hashes[i]})
		*accepted = append(*accepted, wire.SeqEnvelope{Seq: seq, Envelope: *e})
	}
	for _, gid := range order {
		if err := tx.Emit(ctx, store.Change{Kind: store.ChangeEnvelopes, Workspace: ws, Group: gid, Seq: groups[gid].head}); err != nil {
			return len(envs), err
		}
	}
	// The budget is checked against the trigger-maintained counter after the
	// inserts (the notifications ride along; they are delivered only if the
	// transaction commits).
	after, err := tx.LogBytesAndNotify(ctx, ws)
	if err != nil {
		return len(envs), err
	}
	if s.maxLogBytes > 0 && (after < 0 || uint64(after) > s.maxLogBytes) {
		return len(envs), budgetError(s.maxLogBytes)
	}
	return len(envs), nil
}

func budgetError(limit uint64) *wire.Error {
	return wire.Errorf(wire.CodeLogBudgetExhausted,
		"This workspace has used its storage budget on the relay; compact history or move to a larger plan, then send again.",
		wire.U("limit_bytes", limit))
}

// agentKindError refuses envelope i, of an agent's key and not content.
// Every member ignores such an envelope (it never changes a group), but in
// the log an agent's commit for the current epoch would make each newcomer
// read the channel's GroupInfo as stale and wait for a real commit.
func agentKindError(i int, kind wire.Kind) *wire.Error {
	return wire.Errorf(wire.CodeAuthAgentKind, "An agent may send only content; this envelope is of another kind.",
		wire.U("index", uint64(i)), wire.U("kind", uint64(kind)))
}

func badEnvelopeSignature(i int) *wire.Error {
	return wire.Errorf(wire.CodeAuthBadSignature, "An envelope's author signature does not verify.", wire.U("index", uint64(i)))
}

// authorKey resolves the public key of an envelope author: a key of the
// current set, or the key bound to the sending grant connection while its
// grant is live.
func (s *Service) authorKey(ctx context.Context, tx store.Tx, ws wire.ID, c *cachedSet, p wire.AuthOK, author wire.ID, i int) ([]byte, error) {
	if key := c.keys[author]; key != nil {
		return key, nil
	}
	if p.Kind == wire.PrincipalGrant && p.Principal == author {
		key, _, err := tx.GrantKey(ctx, ws, author)
		if err == nil {
			ok, err := s.allowed(ctx, tx, ws, wire.PrincipalGrant, author)
			if err != nil {
				return nil, err
			}
			if ok {
				return key, nil
			}
			return nil, wire.Errorf(wire.CodeAuthRevoked, "The invite grant this device joined with has been voided.", wire.U("index", uint64(i)))
		}
		if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	err := refuseKey(ctx, tx, ws, author)
	var we *wire.Error
	if errors.As(err, &we) {
		we.Fields = append(we.Fields, wire.U("index", uint64(i)))
	}
	return nil, err
}

// loadGroup reads a group's head, creating the group in ws on its first
// envelope. Groups are keyed by (workspace, group id): a group of another
// workspace with the same id is another group, and neither can take or
// block the other. That a group exists is cached (groups are never
// deleted).
//
// headHint, when not nil, is the group's head seq already read under the
// workspace lock.
func (s *Service) loadGroup(ctx context.Context, tx store.Tx, ws, id wire.ID, now int64, headHint *uint64) (*groupState, error) {
	g := &groupState{authors: map[wire.ID]store.AuthorHead{}, absent: map[wire.ID]bool{}}
	k := groupKey{ws, id}
	s.mu.Lock()
	known := s.exists[k]
	s.mu.Unlock()
	if !known {
		_, err := tx.Group(ctx, ws, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			// The workspace lock is held, so nobody creates it meanwhile.
			if err := tx.CreateGroup(ctx, ws, id, now); err != nil {
				return nil, err
			}
			return g, nil // cached once the creating transaction commits
		case err != nil:
			return nil, err
		}
		s.mu.Lock()
		s.exists[k] = true
		s.mu.Unlock()
	}
	if headHint != nil {
		g.head = *headHint
		return g, nil
	}
	head, err := tx.GroupHead(ctx, ws, id)
	if err != nil {
		return nil, err
	}
	g.head = head
	return g, nil
}

// checkChain enforces the author chain: ctr = previous + 1 and prev = hash of
// the previous envelope (the first has ctr 1 and a zero prev).
func checkChain(ctx context.Context, tx store.Tx, ws wire.ID, g *groupState, e *wire.Envelope, hash wire.ID, i int) error {
	head, ok := g.authors[e.Author]
	if !ok && !g.absent[e.Author] {
		h, err := tx.AuthorHead(ctx, ws, e.Group, e.Author)
		switch {
		case err == nil:
			head, ok = h, true
			g.authors[e.Author] = h
		case errors.Is(err, store.ErrNotFound):
			g.absent[e.Author] = true
		default:
			return err
		}
	}
	idx := wire.U("index", uint64(i))
	if !ok {
		if e.Ctr != 1 {
			return wire.Errorf(wire.CodeChainGap, "The author's first envelope in a group has ctr 1.", idx, wire.U("expected_ctr", 1))
		}
		if !e.Prev.IsZero() {
			return wire.Errorf(wire.CodeChainFork, "The author's first envelope in a group has no previous hash.", idx, wire.U("ctr", e.Ctr))
		}
		return nil
	}
	switch {
	case e.Ctr == head.Ctr+1:
		if e.Prev != head.Hash {
			return wire.Errorf(wire.CodeChainFork, "The envelope does not extend the author's last accepted envelope.", idx, wire.U("ctr", e.Ctr))
		}
		return nil
	case e.Ctr > head.Ctr+1:
		return wire.Errorf(wire.CodeChainGap, "The envelope skips counters in the author's chain.", idx, wire.U("expected_ctr", head.Ctr+1))
	}
	// ctr at or below the head: the same envelope again, or a different one
	// in a taken place.
	same := e.Ctr == head.Ctr && hash == head.Hash
	if !same {
		old, err := tx.EnvelopeByAuthor(ctx, ws, e.Group, e.Author, e.Ctr)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		same = err == nil && old.Hash == hash
	}
	if same {
		return wire.Errorf(wire.CodeChainReplay, "This envelope was already accepted.", idx, wire.U("ctr", e.Ctr))
	}
	return wire.Errorf(wire.CodeChainFork, "Another envelope already holds this place in the author's chain.", idx, wire.U("ctr", e.Ctr))
}

// Fetch returns a group's envelopes with seq > afterSeq, ascending: at most
// limit (0 means DefaultFetchLimit, capped at MaxFetchLimit) and at most
// MaxFetchBytes of ct, but always at least one if there is one, so a page
// fits a frame. Through is the last seq the page accounts for (each seq
// up to it is an envelope, below DroppedBelow, or tombstoned in Deleted;
// docs/protocol/wire.md "Gaps"); More says whether the group has seqs past
// it.
func (s *Service) Fetch(ctx context.Context, ws, group wire.ID, afterSeq uint64, limit uint32) (*wire.Envelopes, error) {
	n := int(limit)
	if n <= 0 {
		n = DefaultFetchLimit
	}
	if n > MaxFetchLimit {
		n = MaxFetchLimit
	}
	out := &wire.Envelopes{Group: group}
	err := s.st.View(ctx, func(tx store.Tx) error {
		g, err := tx.Group(ctx, ws, group)
		if errors.Is(err, store.ErrNotFound) {
			if _, err := tx.Workspace(ctx, ws); errors.Is(err, store.ErrNotFound) {
				return errUnknownWorkspace(ws)
			}
			return nil // a group nobody of this workspace has written to yet is empty
		}
		if err != nil {
			return err
		}
		rows, err := tx.Envelopes(ctx, ws, group, afterSeq, n, MaxFetchBytes)
		if err != nil {
			return err
		}
		out.HeadSeq, out.DroppedBelow = g.HeadSeq, g.DroppedBelow
		// The page's envelopes end at the head unless the limit or the
		// byte cap cut them (a row is left out only once those before it
		// hold MaxFetchBytes).
		through, size := g.HeadSeq, 0
		for _, r := range rows {
			size += len(r.Envelope.CT)
		}
		if len(rows) == n || size >= MaxFetchBytes {
			through = rows[len(rows)-1].Seq
		}
		if through, err = s.tombstones(ctx, tx, ws, group, afterSeq, through, n, out); err != nil {
			return err
		}
		for _, r := range rows {
			if r.Seq <= through {
				out.Envelopes = append(out.Envelopes, wire.SeqEnvelope{Seq: r.Seq, Envelope: r.Envelope})
			}
		}
		out.Through, out.More = max(through, afterSeq), through < g.HeadSeq
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// tombstones adds to out the tombstones of group in (afterSeq, through], at
// most limit, with the instructions they name (at most
// wire.MaxDeletionBytes of them beyond the first). It returns through,
// lowered to the last tombstone kept when the tombstones are cut.
func (s *Service) tombstones(ctx context.Context, tx store.Tx, ws, group wire.ID, afterSeq, through uint64, limit int, out *wire.Envelopes) (uint64, error) {
	if through <= afterSeq {
		return through, nil
	}
	ts, err := tx.Tombstones(ctx, ws, group, afterSeq, through, limit)
	if err != nil {
		return 0, err
	}
	if len(ts) == limit {
		through = ts[len(ts)-1].Seq
	}
	index := map[wire.ID]uint16{}
	size := 0
	for i, t := range ts {
		j, ok := index[t.Deletion]
		if !ok {
			body, err := tx.WrapDeletion(ctx, ws, group, t.Deletion)
			if err != nil {
				return 0, err
			}
			if i > 0 && (size+len(body) > wire.MaxDeletionBytes || len(out.Deletions) == math.MaxUint16) {
				return ts[i-1].Seq, nil
			}
			d, err := wire.DecodeWrapsDelete(body)
			if err != nil {
				return 0, err
			}
			size += len(body)
			j = uint16(len(out.Deletions))
			index[t.Deletion] = j
			out.Deletions = append(out.Deletions, d)
		}
		out.Deleted = append(out.Deleted, wire.Tombstone{Seq: t.Seq, Tag: t.Tag, Deletion: j})
	}
	return through, nil
}
