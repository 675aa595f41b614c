package server

import (
	"errors"
	"fmt"

	"weald/backend/wire"
)

// readLoop reads requests until the connection ends and answers each with
// exactly one frame carrying its request id.
func (s *Server) readLoop(c *conn) {
	for {
		b, err := c.readFrame(c.ctx)
		if c.isKicked() {
			// Revoked (or too slow) while this frame arrived: it is not
			// executed, and the close already on its way is the answer.
			return
		}
		var over *errOversize
		var id uint32
		switch {
		case errors.As(err, &over):
			id = over.id
		case errors.Is(err, errText):
		case err != nil:
			return
		case len(b) >= frameHeaderLen:
			id = uint32(b[1])<<24 | uint32(b[2])<<16 | uint32(b[3])<<8 | uint32(b[4])
		}
		// Every message counts against the rate, refused ones included.
		if ok, wait := c.rate.take(s.now()); !ok {
			if c.replyErr(id, wire.Errorf(wire.CodeLimitRate, "Too many requests on this connection; slow down.",
				wire.U("retry_after_ms", uint64(wait.Milliseconds()+1)))) != nil {
				return
			}
			continue
		}
		if over != nil {
			if c.replyErr(id, frameSizeError(s.lim.MaxFrameBytes)) != nil {
				return
			}
			continue
		}
		if err != nil {
			if c.replyErr(0, wire.Errorf(wire.CodeMalformed, "Frames are binary WebSocket messages.")) != nil {
				return
			}
			continue
		}
		f, err := wire.DecodeFrame(b)
		if err != nil {
			if c.replyErr(f.ID, decodeError(err)) != nil {
				return
			}
			continue
		}
		s.metrics.Requests.WithLabelValues(frameName(f.Body.FrameType())).Inc()
		body, after, err := s.handle(c, f.Body)
		if err != nil && c.ctx.Err() != nil {
			// The connection is closing (revoked, shutting down): the request
			// was cut short, and the client learns that from the close.
			return
		}
		if err != nil {
			we := asWireError(err)
			if we.Code == wire.CodeInternal {
				s.log.Error("request failed", "frame", frameName(f.Body.FrameType()), "workspace", c.workspace.Short(), "err", err)
			}
			err = c.replyErr(f.ID, we)
		} else {
			err = c.reply(f.ID, body)
		}
		if err != nil {
			return
		}
		if after != nil {
			after()
		}
	}
}

func frameName(t wire.FrameType) string { return fmt.Sprintf("0x%02x", uint8(t)) }

// handle executes one request. after, if set, runs once the answer is
// queued (fan-out, revocation).
func (s *Server) handle(c *conn, body wire.Body) (wire.Body, func(), error) {
	ctx := c.ctx
	p := Principal{Kind: c.kind, Principal: c.key}
	switch req := body.(type) {
	case *wire.Hello, *wire.Auth:
		return nil, nil, wire.Errorf(wire.CodeMalformed, "This connection is already authenticated.")

	case *wire.Send:
		if n := len(req.Envelopes); n > s.lim.MaxEnvelopesPerRequest {
			return nil, nil, wire.Errorf(wire.CodeLimitBatchSize, "The batch has more envelopes than this relay accepts in one request.",
				wire.U("limit", uint64(s.lim.MaxEnvelopesPerRequest)))
		}
		if len(req.Envelopes) == 0 {
			return nil, nil, wire.Errorf(wire.CodeMalformed, "A send must carry at least one envelope.")
		}
		items, accepted, err := s.backend.Send(ctx, c.workspace, p, req.Envelopes)
		if err != nil {
			return nil, nil, err
		}
		s.metrics.Accepted.Add(float64(len(accepted)))
		var ct int
		for i := range accepted {
			ct += len(accepted[i].Envelope.CT)
		}
		s.metrics.WorkspaceBytes.WithLabelValues(c.workspace.String()).Add(float64(ct))
		ws := c.workspace
		return &wire.Ack{Items: items}, func() { s.publishLocal(ws, accepted) }, nil

	case *wire.Fetch:
		limit := req.Limit
		if limit == 0 || int(limit) > s.lim.FetchPageSize {
			limit = uint32(s.lim.FetchPageSize)
		}
		res, err := s.backend.Fetch(ctx, c.workspace, req.Group, req.AfterSeq, limit)
		if err != nil {
			return nil, nil, err
		}
		return res, nil, nil

	case *wire.FetchLatest:
		res, err := s.backend.FetchLatest(ctx, c.workspace, req.Group, req.Kinds)
		if err != nil {
			return nil, nil, err
		}
		return res, nil, nil

	case *wire.Subscribe:
		if len(req.Items) == 0 {
			return nil, nil, wire.Errorf(wire.CodeMalformed, "A subscribe must name at least one group.")
		}
		// The limit first, before anything reads the store: the groups
		// this request would add to the connection's subscriptions.
		fresh := map[wire.ID]struct{}{}
		c.mu.Lock()
		for _, it := range req.Items {
			if _, had := c.subs[it.Group]; !had {
				fresh[it.Group] = struct{}{}
			}
			if len(fresh)+len(c.subs) > s.lim.MaxSubscriptions {
				break
			}
		}
		over := len(fresh)+len(c.subs) > s.lim.MaxSubscriptions
		c.mu.Unlock()
		if over {
			return nil, nil, wire.Errorf(wire.CodeLimitSubscriptions,
				"This connection would subscribe to more groups than the relay allows.",
				wire.U("limit", uint64(s.lim.MaxSubscriptions)))
		}
		// All or nothing: every group must be readable by this workspace
		// (groups are keyed by workspace, so another workspace's group of
		// the same id is simply another group) before any subscription
		// starts.
		for _, it := range req.Items {
			if _, err := s.backend.Fetch(ctx, c.workspace, it.Group, it.AfterSeq, 1); err != nil {
				return nil, nil, err
			}
		}
		var started []wire.ID
		for _, it := range req.Items {
			c.mu.Lock()
			_, had := c.subs[it.Group]
			c.mu.Unlock()
			if had {
				continue
			}
			if !s.hub.subscribe(c, it.Group, s.lim.MaxSubscriptions) {
				return nil, s.startCatchUps(c, started), wire.Errorf(wire.CodeLimitSubscriptions,
					"This connection has subscribed to as many groups as the relay allows.",
					wire.U("limit", uint64(s.lim.MaxSubscriptions)))
			}
			c.mu.Lock()
			c.subs[it.Group] = &subState{last: it.AfterSeq, catching: true}
			c.mu.Unlock()
			started = append(started, it.Group)
		}
		return &wire.OK{}, s.startCatchUps(c, started), nil

	case *wire.Unsubscribe:
		for _, g := range req.Groups {
			s.hub.unsubscribe(c, g)
			c.mu.Lock()
			delete(c.subs, g)
			c.mu.Unlock()
		}
		return &wire.OK{}, nil, nil

	case *wire.RosterAppend:
		res, err := s.backend.RosterAppend(ctx, c.workspace, p, req.ExpectedHead, req.Op)
		if err != nil {
			return nil, nil, err
		}
		ws := c.workspace
		return res, func() { s.rosterMoved(ws, res.Index, res.Head) }, nil

	case *wire.RosterFetch:
		res, err := s.backend.RosterFetch(ctx, c.workspace, req.AfterIndex, req.Limit)
		if err != nil {
			return nil, nil, err
		}
		return res, nil, nil

	case *wire.AccessSetPublish:
		v, err := s.backend.PublishAccessSet(ctx, c.workspace, p, req.Set)
		if err != nil {
			return nil, nil, err
		}
		ws := c.workspace
		return &wire.AccessSetAccepted{Version: v}, func() { s.accessSetMoved(ws, v) }, nil

	case *wire.AccessSetGet:
		cur, err := s.backend.CurrentAccessSet(ctx, c.workspace)
		if err != nil {
			return nil, nil, err
		}
		return cur, nil, nil

	case *wire.AccessRefusalsGet:
		res, err := s.backend.AccessRefusals(ctx, c.workspace, req.After)
		if err != nil {
			return nil, nil, err
		}
		return res, nil, nil

	case *wire.KeyPackagePut:
		res, err := s.backend.KeyPackagePut(ctx, c.workspace, p, req.Items)
		if err != nil {
			return nil, nil, err
		}
		return res, nil, nil

	case *wire.KeyPackageClaim:
		res, err := s.backend.KeyPackageClaim(ctx, c.workspace, p, req.Owner)
		if err != nil {
			return nil, nil, err
		}
		return res, nil, nil

	case *wire.KeyPackageClaimBatch:
		res, err := s.backend.KeyPackageClaimBatch(ctx, c.workspace, p, req.Owners)
		if err != nil {
			return nil, nil, err
		}
		return &wire.KeyPackageClaimedBatch{Items: res}, nil, nil

	case *wire.DropBeforeRequest:
		res, err := s.backend.DropBefore(ctx, c.workspace, p, req.Drop)
		if err != nil {
			return nil, nil, err
		}
		return res, func() { s.statsSoon(c.workspace) }, nil

	case *wire.WrapsDelete:
		res, err := s.backend.DeleteWraps(ctx, c.workspace, p, *req)
		if err != nil {
			return nil, nil, err
		}
		return res, func() { s.statsSoon(c.workspace) }, nil

	case *wire.WrapsDeleteBatch:
		res, err := s.backend.DeleteWrapsBatch(ctx, c.workspace, p, req.Items)
		if err != nil {
			return nil, nil, err
		}
		return &wire.WrapsDeletedBatch{Items: res}, func() { s.statsSoon(c.workspace) }, nil

	case *wire.WelcomeNotice:
		if err := s.backend.WelcomeNotice(ctx, c.workspace, p, *req); err != nil {
			return nil, nil, err
		}
		return &wire.OK{}, nil, nil

	case *wire.WelcomesGet:
		res, err := s.backend.Welcomes(ctx, c.workspace, p)
		if err != nil {
			return nil, nil, err
		}
		return res, nil, nil

	case *wire.WelcomesDone:
		if err := s.backend.WelcomesDone(ctx, c.workspace, p, req.Items); err != nil {
			return nil, nil, err
		}
		return &wire.OK{}, nil, nil

	case *wire.RecoveryDirPut:
		if err := s.backend.RecoveryDirPut(ctx, c.workspace, p, req.Items); err != nil {
			return nil, nil, err
		}
		return &wire.OK{}, nil, nil

	case *wire.RecoveryDirGet:
		res, err := s.backend.RecoveryDir(ctx, c.workspace, p, req.Owner)
		if err != nil {
			return nil, nil, err
		}
		return res, nil, nil

	case *wire.RecoveryDirDrop:
		res, err := s.backend.RecoveryDirDrop(ctx, c.workspace, p, *req)
		if err != nil {
			return nil, nil, err
		}
		return res, nil, nil

	case *wire.StatsRequest:
		res, err := s.backend.Stats(ctx, c.workspace)
		if err != nil {
			return nil, nil, err
		}
		s.observeStats(res)
		return res, nil, nil
	}
	return nil, nil, wire.Errorf(wire.CodeUnknownFrame, "This frame is not a request a client may send.",
		wire.U("type", uint64(body.FrameType())))
}

func (s *Server) startCatchUps(c *conn, groups []wire.ID) func() {
	if len(groups) == 0 {
		return nil
	}
	return func() {
		for _, g := range groups {
			go c.catchUp(g)
		}
	}
}
