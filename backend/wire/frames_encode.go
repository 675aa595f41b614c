package wire

func (h *Hello) encode(w *writer)     { w.u16(h.Version); w.id(h.Workspace) }
func (c *Challenge) encode(w *writer) { w.id(c.Nonce) }
func (a *Auth) encode(w *writer) {
	w.u8(uint8(a.Method))
	w.opaque(a.Key)
	w.opaque(a.Signature)
	w.opaque(a.Grant)
	w.opaque(a.GrantSignature)
}
func (a *AuthOK) encode(w *writer) { w.u8(uint8(a.Kind)); w.id(a.Principal); w.u64(a.AccessVersion) }

func (s *Send) encode(w *writer) {
	w.vector(func(w *writer) {
		for i := range s.Envelopes {
			s.Envelopes[i].encode(w)
		}
	})
}

func (a *Ack) encode(w *writer) {
	w.vector(func(w *writer) {
		for _, it := range a.Items {
			w.id(it.Group)
			w.u64(it.Seq)
			w.id(it.Hash)
		}
	})
}

func (f *Fetch) encode(w *writer) { w.id(f.Group); w.u64(f.AfterSeq); w.u32(f.Limit) }

func (e *Envelopes) encode(w *writer) {
	w.id(e.Group)
	encodeSeqEnvelopes(w, e.Envelopes)
	w.u64(e.HeadSeq)
	w.u64(e.DroppedBelow)
	w.boolean(e.More)
}

func (s *Subscribe) encode(w *writer) {
	w.vector(func(w *writer) {
		for _, it := range s.Items {
			w.id(it.Group)
			w.u64(it.AfterSeq)
		}
	})
}

func (u *Unsubscribe) encode(w *writer) {
	w.vector(func(w *writer) {
		for _, g := range u.Groups {
			w.id(g)
		}
	})
}

func (*OK) encode(*writer) {}

func (a *RosterAppend) encode(w *writer)   { w.id(a.ExpectedHead); w.opaque(a.Op) }
func (a *RosterAppended) encode(w *writer) { w.u64(a.Index); w.id(a.Head) }
func (f *RosterFetch) encode(w *writer)    { w.u64(f.AfterIndex); w.u32(f.Limit) }

func (o *RosterOps) encode(w *writer) {
	w.u64(o.FirstIndex)
	w.vector(func(w *writer) {
		for _, op := range o.Ops {
			w.opaque(op)
		}
	})
	w.id(o.Head)
	w.u64(o.HeadIndex)
	w.boolean(o.More)
}

func (p *AccessSetPublish) encode(w *writer)  { p.Set.encode(w) }
func (a *AccessSetAccepted) encode(w *writer) { w.u64(a.Version) }
func (*AccessSetGet) encode(*writer)          {}
func (c *AccessSetCurrent) encode(w *writer)  { c.Set.encode(w); w.u64(c.AcceptedAt) }

func (p *KeyPackagePut) encode(w *writer) {
	w.vector(func(w *writer) {
		for _, it := range p.Items {
			w.opaque(it.KeyPackage)
			w.boolean(it.LastResort)
		}
	})
}

func (s *KeyPackageStock) encode(w *writer) { w.u32(s.OneUse); w.boolean(s.LastResort) }
func (c *KeyPackageClaim) encode(w *writer) { w.id(c.Owner) }
func (c *KeyPackageClaimed) encode(w *writer) {
	w.id(c.Owner)
	w.opaque(c.KeyPackage)
	w.boolean(c.LastResort)
}

func (d *DropBeforeRequest) encode(w *writer) { d.Drop.encode(w) }
func (d *Dropped) encode(w *writer) {
	w.id(d.Group)
	w.u64(d.BarrierSeq)
	w.u64(d.Envelopes)
	w.u64(d.Bytes)
}
func (*StatsRequest) encode(*writer) {}

func (s *Stats) encode(w *writer) {
	w.id(s.Workspace)
	w.u64(s.LogBytes)
	w.u64(s.LimitBytes)
	w.u64(s.Envelopes)
	w.u64(s.Groups)
	w.u32(s.RetentionDays)
	w.u64(s.OverRetention)
	w.u64(s.OldestUnix)
}

func (e *ErrorBody) encode(w *writer) {
	if e.Err == nil {
		(&Error{Code: CodeInternal}).encode(w)
		return
	}
	e.Err.encode(w)
}

func (e *EventEnvelopes) encode(w *writer) {
	w.id(e.Group)
	encodeSeqEnvelopes(w, e.Envelopes)
}

func (e *EventAccessSet) encode(w *writer) { w.u64(e.Version) }
func (e *EventRoster) encode(w *writer)    { w.u64(e.Index); w.id(e.Head) }
