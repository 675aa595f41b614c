package docs

import (
	"fmt"
	"strings"

	automerge "github.com/automerge/automerge-go"
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

// rootOp is an operation on the document's root map.
type rootOp struct {
	key    string
	action uint64
	preds  uint64
}

// rootOps decodes the operations of c that target the root map. It never
// panics; any malformed column is an error.
func rootOps(c rawChange) ([]rootOp, error) {
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
	var out []rootOp
	for i := range int(n) {
		if objA[i].ok || objC[i].ok {
			continue
		}
		op := rootOp{action: actions[i].u, preds: preds[i].u}
		if !keys[i].ok || !actions[i].ok {
			return nil, errChunk("a root operation without a key or action")
		}
		op.key = keys[i].s
		out = append(out, op)
	}
	return out, nil
}

// checkRoot enforces the channel schemas' rules on root operations, which
// is where one member could otherwise remove or hide another's messages: in
// a chat shard a change may only create message maps under new "m/<id>"
// keys; in an index it may only set "chat/…" entries.
func (d *Document) checkRoot(c rawChange) error {
	if d.ref.Kind != KindChat && d.ref.Kind != KindIndex {
		return nil
	}
	ops, err := rootOps(c)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, op := range ops {
		switch d.ref.Kind {
		case KindChat:
			if op.action != actionMakeMap || op.preds != 0 || !strings.HasPrefix(op.key, msgPrefix) ||
				len(op.key) != len(msgPrefix)+32 || seen[op.key] {
				return fmt.Errorf("%w: change %s alters the shard root (%q)", ErrForbidden, c.hash, op.key)
			}
			if v, err := d.root().Get(op.key); err != nil || v.Kind() != automerge.KindVoid {
				return fmt.Errorf("%w: change %s replaces message %q", ErrForbidden, c.hash, op.key)
			}
			seen[op.key] = true
		case KindIndex:
			if op.action != actionSet || !strings.HasPrefix(op.key, chatPrefix) {
				return fmt.Errorf("%w: change %s alters the index root (%q)", ErrForbidden, c.hash, op.key)
			}
		}
	}
	return nil
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
