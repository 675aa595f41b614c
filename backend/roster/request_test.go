package roster

import (
	"errors"
	"strings"
	"testing"
	"time"

	"weald/backend/identity"
)

func TestAgentRequestRoundTripAndTamper(t *testing.T) {
	w := bootstrapped(t)
	k, _ := w.newAgent()
	r, err := NewAgentRequest(w.ws, k, "ci bot", []string{"general", "activity"}, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	s := r.String()
	// A pasted request may be wrapped over lines.
	got, err := ParseAgentRequest(" " + s[:30] + "\n" + s[30:] + "\n")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "ci bot" || len(got.Scope) != 2 || got.ValidFor != 24*time.Hour || got.AgentID() != identity.AgentIDOf(k.Public()) {
		t.Fatalf("%+v", got)
	}
	// Its possession proof admits the agent (owner zero).
	cert, _ := identity.IssueDelegation(w.owner.dev, k.Public(), []identity.GroupID{ActivityGroupID(w.ws)}, w.now, w.now.Add(time.Hour))
	w.must(w.owner.signer(), &AdmitAgent{Cert: cert, Possession: got.Possession, Name: got.Name})

	// Someone who widens the scope or the validity breaks the signature.
	wide := *got
	wide.Scope = append(wide.Scope, "secret")
	if _, err := ParseAgentRequest(wide.String()); !errors.Is(err, ErrAgentRequest) {
		t.Fatalf("widened request: %v", err)
	}
	long := *got
	long.ValidFor = 48 * time.Hour
	if _, err := ParseAgentRequest(long.String()); !errors.Is(err, ErrAgentRequest) {
		t.Fatalf("lengthened request: %v", err)
	}
	for _, bad := range []string{"", "weald-agent-request:", "weald-agent-request:!!", "hello", AgentRequestPrefix + strings.Repeat("A", 20000)} {
		if _, err := ParseAgentRequest(bad); !errors.Is(err, ErrAgentRequest) {
			t.Fatalf("%q: %v", bad[:min(len(bad), 40)], err)
		}
	}
	if _, err := NewAgentRequest(w.ws, k, "", []string{"general"}, time.Hour); !errors.Is(err, ErrAgentRequest) {
		t.Fatal(err)
	}
	if _, err := NewAgentRequest(w.ws, k, "bot", []string{"general"}, MaxAgentValidity+time.Second); !errors.Is(err, ErrAgentRequest) {
		t.Fatal(err)
	}
}

// FuzzParseAgentRequest: untrusted text never panics; an accepted request
// re-encodes to the same text.
func FuzzParseAgentRequest(f *testing.F) {
	w := bootstrapped(f)
	k, _ := w.newAgent()
	r, _ := NewAgentRequest(w.ws, k, "bot", []string{"general"}, time.Hour)
	f.Add(r.String())
	f.Add(AgentRequestPrefix)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseAgentRequest(s)
		if err != nil {
			return
		}
		if got.String() != strings.Join(strings.Fields(s), "") {
			t.Fatal("an accepted request does not re-encode to its text")
		}
	})
}
