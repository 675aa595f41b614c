package wire

// Welcome notices (docs/protocol/wire.md "Welcome notices"): a member that
// added devices or agents to a group by Welcome tells the relay which keys
// the Welcome is for; the relay keeps a notice per added key, pushes
// EVENT_WELCOME to that key's live connections, and serves the notices to
// it at connect (WELCOMES_GET) until it clears them (WELCOMES_DONE). So an
// added device reads the one log that holds its Welcome, when it arrives,
// and no other.
const (
	FrameWelcomeNotice FrameType = 0x44 // → OK
	FrameWelcomesGet   FrameType = 0x45 // → Welcomes
	FrameWelcomes      FrameType = 0x46
	FrameWelcomesDone  FrameType = 0x47 // → OK

	FrameEventWelcome FrameType = 0x83
)

// MaxWelcomeTo bounds the keys one notice names (a Welcome adds at most
// this many: 50 people with 2 devices each fit).
const MaxWelcomeTo = 1024

// MaxWelcomes is how many notices one WELCOME_NOTICE, one answer to
// WELCOMES_GET or one WELCOMES_DONE carries.
const MaxWelcomes = 64

// MaxWelcomesKept is how many notices the relay keeps per key (the
// newest): twice the 512 live groups a workspace may have (channels.md
// "Limits"), so a device added to every group while away loses none; a
// client takes them a page of MaxWelcomes at a time.
const MaxWelcomesKept = 1024

// WelcomeRef names a Welcome envelope: struct { opaque group[32]; uint64 seq; }.
type WelcomeRef struct {
	Group ID
	Seq   uint64
}

// WelcomeNotice says each Welcome of Welcomes, an envelope of kind
// mls.welcome the sender authored, adds the keys in To (one notice serves
// one Welcome adding many people, or the Welcomes of one agent's adds to
// many groups): struct { WelcomeRef welcomes<V>; opaque to<V>; }
// (welcomes: 1..64; to: 1..1024 concatenated 32-byte key ids).
type WelcomeNotice struct {
	Welcomes []WelcomeRef
	To       []ID
}

// WelcomesGet asks for the notices kept for the connection's key (empty).
type WelcomesGet struct{}

// Welcomes answers WelcomesGet: struct { WelcomeRef items<V>; } (≤ 64,
// oldest first).
type Welcomes struct{ Items []WelcomeRef }

// WelcomesDone clears notices of the connection's key:
// struct { WelcomeRef items<V>; } (1..64).
type WelcomesDone struct{ Items []WelcomeRef }

// EventWelcome tells a connection that a notice for its key was kept:
// struct { opaque group[32]; uint64 seq; }.
type EventWelcome struct{ WelcomeRef }

func (n *WelcomeNotice) encode(w *writer) {
	encodeWelcomeRefs(w, n.Welcomes)
	w.Vector(func(w *writer) {
		for _, k := range n.To {
			w.Array32(k)
		}
	})
}

func encodeWelcomeRefs(w *writer, items []WelcomeRef) {
	w.Vector(func(w *writer) {
		for _, it := range items {
			w.Array32(it.Group)
			w.U64(it.Seq)
		}
	})
}

func (*WelcomesGet) encode(*writer)      {}
func (a *Welcomes) encode(w *writer)     { encodeWelcomeRefs(w, a.Items) }
func (d *WelcomesDone) encode(w *writer) { encodeWelcomeRefs(w, d.Items) }
func (e *EventWelcome) encode(w *writer) { w.Array32(e.Group); w.U64(e.Seq) }

func (*WelcomeNotice) FrameType() FrameType { return FrameWelcomeNotice }
func (*WelcomesGet) FrameType() FrameType   { return FrameWelcomesGet }
func (*Welcomes) FrameType() FrameType      { return FrameWelcomes }
func (*WelcomesDone) FrameType() FrameType  { return FrameWelcomesDone }
func (*EventWelcome) FrameType() FrameType  { return FrameEventWelcome }

func decodeWelcomeRefs(r *reader, min int) []WelcomeRef {
	var out []WelcomeRef
	list(r, func(r *reader) {
		if len(out) >= MaxWelcomes {
			fail(r, "more than %d welcome notices", MaxWelcomes)
			return
		}
		out = append(out, WelcomeRef{Group: ID(r.Array32()), Seq: r.U64()})
	})
	if len(out) < min {
		fail(r, "no welcome notice")
	}
	return out
}

func decodeWelcomeNotice(r *reader) Body {
	n := &WelcomeNotice{Welcomes: decodeWelcomeRefs(r, 1)}
	list(r, func(r *reader) {
		if len(n.To) >= MaxWelcomeTo {
			fail(r, "a welcome notice names more than %d keys", MaxWelcomeTo)
			return
		}
		n.To = append(n.To, ID(r.Array32()))
	})
	if len(n.To) == 0 {
		fail(r, "a welcome notice names no key")
	}
	return n
}

func init() {
	bodyDecoders[FrameWelcomeNotice] = decodeWelcomeNotice
	bodyDecoders[FrameWelcomesGet] = func(*reader) Body { return &WelcomesGet{} }
	bodyDecoders[FrameWelcomes] = func(r *reader) Body { return &Welcomes{Items: decodeWelcomeRefs(r, 0)} }
	bodyDecoders[FrameWelcomesDone] = func(r *reader) Body { return &WelcomesDone{Items: decodeWelcomeRefs(r, 1)} }
	bodyDecoders[FrameEventWelcome] = func(r *reader) Body {
		return &EventWelcome{WelcomeRef{Group: ID(r.Array32()), Seq: r.U64()}}
	}
}
