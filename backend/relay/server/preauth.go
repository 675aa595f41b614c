package server

import (
	"net"
	"net/netip"
	"sync"
	"time"
)

// preAuth bounds the state the relay holds for connections that have not
// authenticated: how many are open at once in all and per client address,
// and how often one address may try the bootstrap publish (the one request
// other than Hello and Auth allowed before authenticating; docs/protocol/wire.md
// "Before authentication"). An IPv6 address counts by its /64, which one
// host usually holds whole.
type preAuth struct {
	mu      sync.Mutex
	max     int
	perAddr int
	total   int
	byAddr  map[netip.Addr]int
	publish map[netip.Addr]*bucket
	// provision is the same allowance for PROVISION, kept apart so that a
	// provision does not spend the genesis publish that follows it.
	provision map[netip.Addr]*bucket
	// teardown is the same allowance for TEARDOWN, apart again so that
	// teardowns cannot starve provisions.
	teardown map[netip.Addr]*bucket
	rate     float64
	burst    int
	maxAddrs int
}

func newPreAuth(max, perAddr int, publishRate float64, publishBurst int) *preAuth {
	return &preAuth{max: max, perAddr: perAddr, byAddr: map[netip.Addr]int{}, publish: map[netip.Addr]*bucket{}, provision: map[netip.Addr]*bucket{}, teardown: map[netip.Addr]*bucket{},
		rate: publishRate, burst: publishBurst, maxAddrs: 4096}
}

// peerIP is the socket's peer address (never a forwarded header).
func peerIP(remote string) netip.Addr {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}

// clientAddr is the address a connection counts against: the peer's IP, an
// IPv6 one cut to its /64.
func clientAddr(remote string) netip.Addr {
	a := peerIP(remote)
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.Addr()
	}
	return a
}

// admit counts a new unauthenticated connection from addr. It returns false
// when the relay or that address already holds the most allowed.
func (p *preAuth) admit(addr netip.Addr) (ok bool, perAddr bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.total >= p.max {
		return false, false
	}
	if p.byAddr[addr] >= p.perAddr {
		return false, true
	}
	p.total++
	p.byAddr[addr]++
	return true, false
}

// release ends what admit counted (the connection authenticated or closed).
func (p *preAuth) release(addr netip.Addr) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total--
	if p.byAddr[addr]--; p.byAddr[addr] <= 0 {
		delete(p.byAddr, addr)
	}
}

// takePublish spends one of addr's bootstrap publishes; false means the
// address has made too many lately.
func (p *preAuth) takePublish(addr netip.Addr, now time.Time) bool {
	return p.take(p.publish, addr, now)
}

// takeTeardown spends one of addr's teardowns (TEARDOWN).
func (p *preAuth) takeTeardown(addr netip.Addr, now time.Time) bool {
	return p.take(p.teardown, addr, now)
}

// takeProvision spends one of addr's provisions (PROVISION).
func (p *preAuth) takeProvision(addr netip.Addr, now time.Time) bool {
	return p.take(p.provision, addr, now)
}

func (p *preAuth) take(m map[netip.Addr]*bucket, addr netip.Addr, now time.Time) bool {
	p.mu.Lock()
	b := m[addr]
	if b == nil {
		if len(m) >= p.maxAddrs {
			clear(m) // forgetting lets some through again, never more than burst each
		}
		b = newBucket(p.rate, p.burst, now)
		m[addr] = b
	}
	p.mu.Unlock()
	ok, _ := b.take(now)
	return ok
}
