package main

import (
	"context"
	"fmt"
	"time"

	"weald/backend/errcode"
)

// errDMWaiting: the DM's message is still in the outbox (exit 3).
var errDMWaiting = errcode.New("dm/waiting", "the other side started this conversation and has not added this device yet; the message waits in the outbox")

// cmdDM is `weald dm USER TEXT [--wait DURATION]`: the first message to a
// person starts the DM (docs/protocol/dm.md). When the other side started
// it at the same moment and won, this device waits (up to --wait, default
// 30s) for that side to add it, then sends; past the wait the message
// stays in the outbox and goes with the next sync or run (exit 3).
func (c *cli) cmdDM(ctx context.Context, args []string) error {
	p, err := parseArgs(args, "wait")
	if err != nil {
		return err
	}
	if len(p.pos) != 2 {
		return usagef("dm USER TEXT [--wait DURATION]   (USER: a user id, or 8+ hex digits of one)")
	}
	wait := 30 * time.Second
	if s := p.one("wait"); s != "" {
		if wait, err = time.ParseDuration(s); err != nil || wait < 0 {
			return usagef("--wait is a duration such as 30s")
		}
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	res, err := e.SendDM(ctx, p.pos[0], p.pos[1])
	if err != nil {
		return err
	}
	state := "sent"
	if res.Message.State != "" {
		state = "waiting"
		deadline := time.Now().Add(wait)
		for i := 0; i < 1000 && time.Now().Before(deadline); i++ {
			n, err := e.FlushOutbox(ctx)
			if err != nil {
				return err
			}
			if n == 0 {
				state = "sent"
				break
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(250 * time.Millisecond):
			}
		}
	}
	if c.json {
		c.print(map[string]any{"channel": res.Channel, "peer": res.Peer, "created": res.Created, "state": state, "message": res.Message})
	} else if state == "sent" {
		fmt.Fprintf(c.stdout, "sent to %s\n", res.Peer[:8])
	} else {
		fmt.Fprintf(c.stdout, "waiting for %s's device to add this one; the message goes with the next sync\n", res.Peer[:8])
	}
	if state != "sent" {
		return errDMWaiting
	}
	return nil
}
