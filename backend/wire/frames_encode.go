package wire

func (h *Hello) encode(w *writer) { w.U16(h.Version); w.Array32(h.Workspace) }
func (c *Challenge) encode(w *writer) {
	w.Array32(c.Nonce)
	w.Array32(c.Relay)
}
func (a *Auth) encode(w *writer) {
	w.U8(uint8(a.Method))
	w.Opaque(a.Key)
	w.Opaque(a.Signature)
	w.Opaque(a.Grant)
	w.Opaque(a.GrantSignature)
	w.String(a.Host)
}
func (a *AuthOK) encode(w *writer) {
	w.U8(uint8(a.Kind))
	w.Array32(a.Principal)
	w.U64(a.AccessVersion)
}

func (s *Send) encode(w *writer) {
	w.Vector(func(w *writer) {
		for i := range s.Envelopes {
			s.Envelopes[i].encode(w)
		}
	})
}

func (a *Ack) encode(w *writer) {
	w.Vector(func(w *writer) {
		for _, it := range a.Items {
			w.Array32(it.Group)
			w.U64(it.Seq)
			w.Array32(it.Hash)
		}
	})
}

func (f *Fetch) encode(w *writer) { w.Array32(f.Group); w.U64(f.AfterSeq); w.U32(f.Limit) }

func (e *Envelopes) encode(w *writer) {
	w.Array32(e.Group)
	encodeSeqEnvelopes(w, e.Envelopes)
	w.U64(e.HeadSeq)
	w.U64(e.DroppedBelow)
	w.Bool(e.More)
	w.U64(e.Through)
	encodeTombstones(w, e.Deleted)
	w.Vector(func(w *writer) {
		for i := range e.Deletions {
			e.Deletions[i].encode(w)
		}
	})
}

func (s *Subscribe) encode(w *writer) {
	w.Vector(func(w *writer) {
		for _, it := range s.Items {
			w.Array32(it.Group)
			w.U64(it.AfterSeq)
		}
	})
}

func (u *Unsubscribe) encode(w *writer) {
	w.Vector(func(w *writer) {
		for _, g := range u.Groups {
			w.Array32(g)
		}
	})
}

func (*OK) encode(*writer) {}

func (a *RosterAppend) encode(w *writer)   { w.Array32(a.ExpectedHead); w.Opaque(a.Op) }
func (a *RosterAppended) encode(w *writer) { w.U64(a.Index); w.Array32(a.Head) }
func (f *RosterFetch) encode(w *writer)    { w.U64(f.AfterIndex); w.U32(f.Limit) }

func (o *RosterOps) encode(w *writer) {
	w.U64(o.FirstIndex)
	w.Vector(func(w *writer) {
		for _, op := range o.Ops {
			w.Opaque(op)
		}
	})
	w.Array32(o.Head)
	w.U64(o.HeadIndex)
	w.Bool(o.More)
}

func (p *AccessSetPublish) encode(w *writer)  { p.Set.encode(w) }
func (a *AccessSetAccepted) encode(w *writer) { w.U64(a.Version) }
func (*AccessSetGet) encode(*writer)          {}
func (c *AccessSetCurrent) encode(w *writer)  { c.Set.encode(w); w.U64(c.AcceptedAt) }

func (p *KeyPackagePut) encode(w *writer) {
	w.Vector(func(w *writer) {
		for _, it := range p.Items {
			w.Opaque(it.KeyPackage)
			w.Bool(it.LastResort)
		}
	})
}

func (s *KeyPackageStock) encode(w *writer) { w.U32(s.OneUse); w.Bool(s.LastResort) }
func (c *KeyPackageClaim) encode(w *writer) { w.Array32(c.Owner) }
func (c *KeyPackageClaimed) encode(w *writer) {
	w.Array32(c.Owner)
	w.Opaque(c.KeyPackage)
	w.Bool(c.LastResort)
}

func (d *DropBeforeRequest) encode(w *writer) { d.Drop.encode(w) }
func (d *Dropped) encode(w *writer) {
	w.Array32(d.Group)
	w.U64(d.BarrierSeq)
	w.U64(d.Envelopes)
	w.U64(d.Bytes)
}
func (*StatsRequest) encode(*writer) {}

func (s *Stats) encode(w *writer) {
	w.Array32(s.Workspace)
	w.U64(s.LogBytes)
	w.U64(s.LimitBytes)
	w.U64(s.Envelopes)
	w.U64(s.Groups)
	w.U32(s.RetentionDays)
	w.U64(s.OverRetention)
	w.U64(s.OldestUnix)
}

func (e *ErrorBody) encode(w *writer) {
	if e.Err == nil {
		(&Error{Code: CodeInternal}).encode(w)
		return
	}
	e.Err.encode(w)
}

func (e *EventEnvelopes) encode(w *writer) {
	w.Array32(e.Group)
	encodeSeqEnvelopes(w, e.Envelopes)
}

func (e *EventAccessSet) encode(w *writer) { w.U64(e.Version) }
func (e *EventRoster) encode(w *writer)    { w.U64(e.Index); w.Array32(e.Head) }
