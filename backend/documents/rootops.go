package documents

import (
	"fmt"
	"strconv"
	"strings"

	automerge "github.com/automerge/automerge-go"

	"weald/backend/wire"
)

// Operation column specs of a change chunk (automerge-binary-format-spec
// "Change operation columns"): column id << 4 | type.
const (
	colObjActor  = 0x01 // object id actor (RLE uLEB); null for the root
	colObjCtr    = 0x02 // object id counter (RLE uLEB); null for the root
	colKeyString = 0x15 // map key (RLE string)
	colPredGroup = 0x70 // number of predecessors (RLE uLEB)
)

// Automerge operation actions.
const (
	actionMakeMap = 0
	actionSet     = 1
)

// op is one decoded operation of a change: the object it targets (root,
// or the id actor ‖ counter of the operation that created the object), its
// map key, action and number of predecessors, and its own counter.
type op struct {
	root   bool
	obj    string // objKey of the target when not root
	key    string
	action uint64
	preds  uint64
	ctr    uint64
}

// objKey names an object by the id of the operation that created it.
func objKey(actor []byte, ctr uint64) string {
	return string(actor) + "/" + strconv.FormatUint(ctr, 10)
}

// decodeOps decodes the operations of c. It never panics; any malformed
// column is an error.
func decodeOps(c rawChange) ([]op, error) {
	n := c.ops
	objA, err := rleColumn(c.cols[colObjActor], n, ulebValue)
	if err != nil {
		return nil, err
	}
	objC, err := rleColumn(c.cols[colObjCtr], n, ulebValue)
	if err != nil {
		return nil, err
	}
	keys, err := rleColumn(c.cols[colKeyString], n, stringValue)
	if err != nil {
		return nil, err
	}
	actions, err := rleColumn(c.cols[actionColumn], n, ulebValue)
	if err != nil {
		return nil, err
	}
	preds, err := rleColumn(c.cols[colPredGroup], n, ulebValue)
	if err != nil {
		return nil, err
	}
	out := make([]op, 0, n)
	for i := range int(n) {
		o := op{action: actions[i].u, preds: preds[i].u, key: keys[i].s, ctr: c.startOp + uint64(i)}
		if !actions[i].ok {
			return nil, errChunk("an operation without an action")
		}
		switch {
		case !objA[i].ok && !objC[i].ok:
			o.root = true
			if !keys[i].ok {
				return nil, errChunk("a root operation without a key")
			}
		case objA[i].ok && objC[i].ok:
			actor := c.actor
			if idx := objA[i].u; idx > 0 {
				if idx > uint64(len(c.others)) {
					return nil, errChunk("an object actor index out of range")
				}
				actor = c.others[idx-1]
			}
			o.obj = objKey(actor, objC[i].u)
		default:
			return nil, errChunk("a half-null object id")
		}
		out = append(out, o)
	}
	return out, nil
}

// checkOps enforces the channel schemas on received changes, which is where
// one member could otherwise remove, hide or rewrite another's messages:
//
//   - chat shard root: only creating a message map under a new "m/<id>" key;
//   - inside a message map: only by the device that created it, or by
//     another device of the same principal when Options.PrincipalOf says so;
//     no operation may target an object the schema does not have;
//   - index root: only setting "chat/…" entries; nothing else.
func (d *Document) checkOps(c rawChange) error {
	if d.ref.Kind != KindChat && d.ref.Kind != KindIndex {
		return nil
	}
	ops, err := decodeOps(c)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	created := map[string]bool{} // objects this change creates
	for _, o := range ops {
		switch {
		case d.ref.Kind == KindIndex:
			if !o.root || o.action != actionSet || !strings.HasPrefix(o.key, chatPrefix) {
				return fmt.Errorf("%w: change %s alters the index (%q)", ErrForbidden, c.hash, o.key)
			}
		case o.root:
			if o.action != actionMakeMap || o.preds != 0 || !strings.HasPrefix(o.key, msgPrefix) ||
				len(o.key) != len(msgPrefix)+32 || seen[o.key] {
				return fmt.Errorf("%w: change %s alters the shard root (%q)", ErrForbidden, c.hash, o.key)
			}
			if v, err := d.root().Get(o.key); err != nil || v.Kind() != automerge.KindVoid {
				return fmt.Errorf("%w: change %s replaces message %q", ErrForbidden, c.hash, o.key)
			}
			seen[o.key] = true
			created[objKey(c.actor, o.ctr)] = true
		case created[o.obj]:
			if o.action == actionMakeMap || isMake(o.action) {
				created[objKey(c.actor, o.ctr)] = true
			}
		default:
			key, ok := d.objects[o.obj]
			if !ok {
				return fmt.Errorf("%w: change %s writes to an object outside the schema", ErrForbidden, c.hash)
			}
			if !d.mayEdit(d.creators[key], c.actor) {
				return fmt.Errorf("%w: change %s edits message %q of another author", ErrForbidden, c.hash, key)
			}
			if isMake(o.action) {
				return fmt.Errorf("%w: change %s nests an object in message %q", ErrForbidden, c.hash, key)
			}
		}
	}
	return nil
}

// isMake reports whether an action creates an object (map, list, text,
// table).
func isMake(action uint64) bool {
	return action == actionMakeMap || action == 2 || action == 4 || action == 6
}

// mayEdit reports whether the change actor edit may write inside a message
// created by actor creator: the same device, or devices of one principal.
func (d *Document) mayEdit(creator, edit []byte) bool {
	if len(creator) < 32 || len(edit) < 32 {
		return false
	}
	if string(creator[:32]) == string(edit[:32]) {
		return true
	}
	if d.opts.PrincipalOf == nil {
		return false
	}
	p1, ok1 := d.opts.PrincipalOf(wire.ID(creator[:32]))
	p2, ok2 := d.opts.PrincipalOf(wire.ID(edit[:32]))
	return ok1 && ok2 && p1 == p2
}

// colValue is one value of a column: null unless ok.
type colValue struct {
	ok bool
	u  uint64
	s  string
}

func ulebValue(b []byte) (colValue, int, bool) {
	v, n, ok := uleb(b)
	return colValue{ok: true, u: v}, n, ok
}

func stringValue(b []byte) (colValue, int, bool) {
	l, n, ok := uleb(b)
	if !ok || l > uint64(len(b)-n) {
		return colValue{}, 0, false
	}
	return colValue{ok: true, s: string(b[n : n+int(l)])}, n + int(l), true
}

// rleColumn decodes exactly n values of an RLE column (a missing column is
// n nulls): runs of a signed length k > 0 and one value repeated k times,
// k < 0 and -k literal values, or 0 and a count of nulls.
func rleColumn(b []byte, n uint64, value func([]byte) (colValue, int, bool)) ([]colValue, error) {
	var out []colValue
	if b == nil {
		return make([]colValue, n), nil
	}
	for len(b) > 0 {
		run, k, ok := sleb(b)
		if !ok {
			return nil, errChunk("bad run length")
		}
		b = b[k:]
		switch {
		case run > 0:
			v, k, ok := value(b)
			if !ok || uint64(len(out))+uint64(run) > n {
				return nil, errChunk("bad run")
			}
			b = b[k:]
			for range run {
				out = append(out, v)
			}
		case run < 0:
			if uint64(len(out))+uint64(-run) > n {
				return nil, errChunk("bad literal run")
			}
			for range -run {
				v, k, ok := value(b)
				if !ok {
					return nil, errChunk("bad literal value")
				}
				b = b[k:]
				out = append(out, v)
			}
		default:
			nulls, k, ok := uleb(b)
			if !ok || uint64(len(out))+nulls > n {
				return nil, errChunk("bad null run")
			}
			b = b[k:]
			for range nulls {
				out = append(out, colValue{})
			}
		}
	}
	if uint64(len(out)) != n {
		return nil, errChunk("a column has %d values for %d operations", len(out), n)
	}
	return out, nil
}
