package relay

import (
	"container/list"

	"weald/backend/wire"
)

// DefaultMaxRosterFolds bounds the workspaces whose folded roster a
// Service keeps in memory when Config.MaxRosterFolds is zero.
const DefaultMaxRosterFolds = 256

// rosterFolds keeps the folded rosters of the workspaces used most
// recently, at most max; the least recently used one goes first. A fold
// that goes is folded again from the store when next needed (the store
// holds the roster; the fold only saves re-reading it). The caller holds
// Service.mu.
type rosterFolds struct {
	max   int
	order *list.List // of wire.ID, most recently used first
	m     map[wire.ID]foldEntry
}

type foldEntry struct {
	f  *rosterFold
	el *list.Element
}

func newRosterFolds(max int) *rosterFolds {
	if max <= 0 {
		max = DefaultMaxRosterFolds
	}
	return &rosterFolds{max: max, order: list.New(), m: map[wire.ID]foldEntry{}}
}

// get returns ws's fold, a new empty one if none is kept, and marks it used.
func (c *rosterFolds) get(ws wire.ID) *rosterFold {
	if e, ok := c.m[ws]; ok {
		c.order.MoveToFront(e.el)
		return e.f
	}
	f := &rosterFold{}
	c.m[ws] = foldEntry{f: f, el: c.order.PushFront(ws)}
	for c.order.Len() > c.max {
		c.drop(c.order.Back().Value.(wire.ID))
	}
	return f
}

// drop forgets ws's fold. A caller still holding it finishes with it; the
// workspace lock it holds keeps the next one from folding meanwhile.
func (c *rosterFolds) drop(ws wire.ID) {
	if e, ok := c.m[ws]; ok {
		c.order.Remove(e.el)
		delete(c.m, ws)
	}
}

// len is the number of folds kept.
func (c *rosterFolds) len() int { return len(c.m) }
