package wire

// Refused access-set publications (spec/lifecycle.md "Detection": "rejected
// access-set publication by a probationary authorizer ... is an attempted
// takeover; both notify every pre-existing admin naming the recovery
// principal spent"). The relay keeps each publication it refused because
// the signer, a device of the roster, holds no admin authority there, and
// serves them to clients, which check the signature themselves.
const (
	FrameAccessRefusalsGet FrameType = 0x34 // → AccessRefusals
	FrameAccessRefusals    FrameType = 0x35
)

// MaxAccessRefusals is how many refusals the relay keeps per workspace
// (the newest) and how many one answer carries.
const MaxAccessRefusals = 64

// maxRefusedSet bounds one refused set's encoding.
const maxRefusedSet = 1 << 20

// AccessRefusalsGet asks for the refusals with id > After:
// struct { uint64 after; }.
type AccessRefusalsGet struct{ After uint64 }

// AccessRefusal is one refused publication: its id (1, 2, 3, … per
// workspace), the relay's clock when it refused it (Unix seconds), and the
// AccessSet as sent (signed by its signer).
type AccessRefusal struct {
	ID  uint64
	At  uint64
	Set []byte
}

// AccessRefusals answers AccessRefusalsGet:
// struct { struct { uint64 id; uint64 at; opaque set<V>; } refusals<V>; } (≤ 64, ascending ids).
type AccessRefusals struct{ Refusals []AccessRefusal }

func (g *AccessRefusalsGet) encode(w *writer) { w.U64(g.After) }

func (a *AccessRefusals) encode(w *writer) {
	w.Vector(func(w *writer) {
		for _, x := range a.Refusals {
			w.U64(x.ID)
			w.U64(x.At)
			w.Opaque(x.Set)
		}
	})
}

func (*AccessRefusalsGet) FrameType() FrameType { return FrameAccessRefusalsGet }
func (*AccessRefusals) FrameType() FrameType    { return FrameAccessRefusals }

func init() {
	bodyDecoders[FrameAccessRefusalsGet] = func(r *reader) Body { return &AccessRefusalsGet{After: r.U64()} }
	bodyDecoders[FrameAccessRefusals] = func(r *reader) Body {
		a := &AccessRefusals{}
		list(r, func(r *reader) {
			if len(a.Refusals) >= MaxAccessRefusals {
				fail(r, "more than %d refusals", MaxAccessRefusals)
				return
			}
			a.Refusals = append(a.Refusals, AccessRefusal{ID: r.U64(), At: r.U64(), Set: opaqueMax(r, maxRefusedSet, "refused set")})
		})
		return a
	}
}
