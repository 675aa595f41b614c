package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// queue turns pushes from committing goroutines into a channel without ever
// blocking the pusher: changes wait in an unbounded slice until the reader
// takes them.
type queue struct {
	mu     sync.Mutex
	items  []Change
	signal chan struct{}
}

func newQueue() *queue { return &queue{signal: make(chan struct{}, 1)} }

func (q *queue) push(c Change) {
	q.mu.Lock()
	q.items = append(q.items, c)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// pump delivers queued changes to out until ctx ends, then closes out.
func (q *queue) pump(ctx context.Context, out chan<- Change) {
	defer close(out)
	for {
		q.mu.Lock()
		items := q.items
		q.items = nil
		q.mu.Unlock()
		for _, c := range items {
			select {
			case out <- c:
			case <-ctx.Done():
				return
			}
		}
		select {
		case <-q.signal:
		case <-ctx.Done():
			return
		}
	}
}

// Changes returns every change committed through this Store (SQLite: this
// process is the only writer) until ctx ends.
func (s *sqlStore) Changes(ctx context.Context) (<-chan Change, error) {
	q := newQueue()
	cancel := s.Subscribe(q.push)
	out := make(chan Change, 64)
	go func() {
		defer cancel()
		q.pump(ctx, out)
	}()
	return out, nil
}

// pgStore is the PostgreSQL store: Changes listens on NotifyChannel, so it
// reports the changes of every relay process on the database, this one's
// included.
type pgStore struct {
	*sqlStore
	url string
	// reconnectDelay bounds how fast a lost LISTEN connection is retried.
	reconnectDelay time.Duration
}

// Changes LISTENs on NotifyChannel on its own connection until ctx ends. If
// the connection is lost it reconnects, and reports a Change with Kind
// ChangeResync so the reader re-reads the heads it follows (notifications
// sent while disconnected are lost).
func (s *pgStore) Changes(ctx context.Context) (<-chan Change, error) {
	conn, err := s.listen(ctx)
	if err != nil {
		return nil, err
	}
	out := make(chan Change, 64)
	go func() {
		defer close(out)
		for {
			n, err := conn.WaitForNotification(ctx)
			if err == nil {
				c, perr := ParseChange(n.Payload)
				if perr != nil {
					continue
				}
				select {
				case out <- c:
				case <-ctx.Done():
				}
				continue
			}
			conn.Close(context.Background())
			if ctx.Err() != nil {
				return
			}
			for conn = nil; conn == nil; {
				t := time.NewTimer(s.reconnectDelay)
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-t.C:
				}
				conn, _ = s.listen(ctx)
			}
			select {
			case out <- Change{Kind: ChangeResync}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

func (s *pgStore) listen(ctx context.Context) (*pgx.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, s.url)
	if err != nil {
		return nil, fmt.Errorf("store: listen connect: %w", err)
	}
	if _, err := conn.Exec(cctx, "LISTEN "+NotifyChannel); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("store: listen: %w", err)
	}
	return conn, nil
}
