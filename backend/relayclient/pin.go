package relayclient

import (
	"net/url"

	"weald/backend/wire"
)

// CodeRelayChanged refuses a relay whose id is not the one the workspace
// pinned on first contact: it may be another relay answering at the same
// address (docs/protocol/wire.md "Handshake", docs/security.md section 7).
const CodeRelayChanged wire.Code = "relay/changed"

// pinRelay checks the relay id a CHALLENGE carried against the pinned one,
// or pins it when none is (the first contact). It runs before the client
// signs anything for that relay.
func (c *Client) pinRelay(id wire.ID) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.relayID == (wire.ID{}) {
		c.relayID = id
		return nil
	}
	if id != c.relayID {
		return wire.Errorf(CodeRelayChanged,
			"This relay is not the one this workspace first connected to (its relay id changed); "+
				"if the relay was really replaced, remove the workspace from this device and join it again.",
			wire.B("pinned", c.relayID[:]), wire.B("presented", id[:]))
	}
	return nil
}

// RelayID returns the relay id this client is pinned to: Config.RelayID,
// or the id the relay presented on the first connection (zero before
// any). A caller that passed no Config.RelayID persists it.
func (c *Client) RelayID() wire.ID {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.relayID
}

// dialledHost is the host an AUTH names: the authority of the normalized
// relay URL, in wire.CanonicalHost form (the relay compares it with the
// Host header it received, which the WebSocket dial sends from the URL).
func dialledHost(relayURL string) string {
	u, err := url.Parse(relayURL)
	if err != nil {
		return ""
	}
	return wire.CanonicalHost(u.Host)
}
