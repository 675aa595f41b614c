package proposal

import (
	"bytes"
	"testing"

	"weald/backend/mls/internal/mlstest"
	"weald/backend/mls/tree"
)

// messagesCase holds the fields of messages.json this package decodes.
type messagesCase struct {
	Add    mlstest.HexBytes `json:"add_proposal"`
	Update mlstest.HexBytes `json:"update_proposal"`
	Remove mlstest.HexBytes `json:"remove_proposal"`
	PSK    mlstest.HexBytes `json:"pre_shared_key_proposal"`
	ReInit mlstest.HexBytes `json:"re_init_proposal"`
	ExtIn  mlstest.HexBytes `json:"external_init_proposal"`
	GCE    mlstest.HexBytes `json:"group_context_extensions_proposal"`
	Commit mlstest.HexBytes `json:"commit"`
}

// TestMessagesRoundTrip decodes every proposal body and commit of
// messages.json and checks that re-encoding gives the same bytes. The
// messages cases name no cipher suite, so all of them run.
func TestMessagesRoundTrip(t *testing.T) {
	var cases []messagesCase
	mlstest.Load(t, "messages.json", &cases)
	ran := 0
	for i, c := range cases {
		t.Run(mlstest.Case(i), func(t *testing.T) {
			bodies := []struct {
				typ Type
				b   []byte
			}{
				{TypeAdd, c.Add}, {TypeUpdate, c.Update}, {TypeRemove, c.Remove},
				{TypePreSharedKey, c.PSK}, {TypeReInit, c.ReInit},
				{TypeExternalInit, c.ExtIn}, {TypeGroupContextExtensions, c.GCE},
			}
			for _, body := range bodies {
				p, err := DecodeBody(body.typ, body.b)
				if err != nil {
					t.Fatalf("case %d: %v: %v", i, body.typ, err)
				}
				if got := p.BodyBytes(); !bytes.Equal(got, body.b) {
					t.Fatalf("case %d: %v does not re-encode", i, body.typ)
				}
				// The full Proposal (with its type) round-trips too.
				q, err := Decode(p.Bytes())
				if err != nil || !bytes.Equal(q.Bytes(), p.Bytes()) {
					t.Fatalf("case %d: %v as Proposal: %v", i, body.typ, err)
				}
			}
			cm, err := DecodeCommit(c.Commit)
			if err != nil {
				t.Fatalf("case %d: commit: %v", i, err)
			}
			if !bytes.Equal(cm.Bytes(), c.Commit) {
				t.Fatalf("case %d: commit does not re-encode", i)
			}
			ran++
		})
	}
	if ran == 0 {
		t.Fatal("no case ran")
	}
	t.Logf("messages.json (proposals, commit): %d cases ran, 0 n/a", ran)
}

func TestRoundTripBuilt(t *testing.T) {
	props := []Proposal{
		{Type: TypeRemove, Remove: &Remove{Removed: 7}},
		{Type: TypePreSharedKey, PreSharedKey: &PreSharedKey{PSK: PreSharedKeyID{Type: PSKExternal, PSKID: []byte("id"), Nonce: []byte{1, 2}}}},
		{Type: TypePreSharedKey, PreSharedKey: &PreSharedKey{PSK: PreSharedKeyID{Type: PSKResumption, Usage: UsageBranch, PSKGroupID: []byte("g"), PSKEpoch: 9, Nonce: []byte{3}}}},
		{Type: TypeReInit, ReInit: &ReInit{GroupID: []byte("g2"), Version: 1, CipherSuite: 2, Extensions: tree.Extensions{{Type: 9, Data: []byte{1}}}}},
		{Type: TypeExternalInit, ExternalInit: &ExternalInit{KEMOutput: []byte{4, 5}}},
		{Type: TypeGroupContextExtensions, GroupContextExtensions: &GroupContextExtensions{Extensions: tree.Extensions{}}},
	}
	c := &Commit{}
	for i := range props {
		b := props[i].Bytes()
		p, err := Decode(b)
		if err != nil || !bytes.Equal(p.Bytes(), b) || p.Type != props[i].Type {
			t.Fatalf("%v: %v", props[i].Type, err)
		}
		c.Proposals = append(c.Proposals, OrRef{Type: OrRefProposal, Proposal: &props[i]})
	}
	c.Proposals = append(c.Proposals, OrRef{Type: OrRefReference, Reference: bytes.Repeat([]byte{7}, 32)})
	b := c.Bytes()
	d, err := DecodeCommit(b)
	if err != nil || !bytes.Equal(d.Bytes(), b) || d.Path != nil || len(d.Proposals) != len(c.Proposals) {
		t.Fatalf("commit round trip: %v", err)
	}
	if d.Proposals[len(d.Proposals)-1].Type != OrRefReference {
		t.Fatal("reference lost")
	}
}

func TestRejects(t *testing.T) {
	bad := map[string][]byte{
		"unknown type":       {0x00, 0x63, 0x01},
		"truncated remove":   {0x00, 0x03, 0x00, 0x00},
		"trailing":           {0x00, 0x03, 0, 0, 0, 1, 0},
		"bad psk type":       {0x00, 0x04, 0x09, 0x00},
		"bad psk usage":      {0x00, 0x04, 0x02, 0x07, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x00},
		"duplicate ext type": {0x00, 0x07, 0x06, 0x00, 0x09, 0x00, 0x00, 0x09, 0x00},
	}
	for name, b := range bad {
		if _, err := Decode(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for name, b := range map[string][]byte{
		"bad or-ref type": {0x02, 0x05, 0x00},
		"bad optional":    {0x00, 0x02},
		"truncated":       {0x05},
	} {
		if _, err := DecodeCommit(b); err == nil {
			t.Errorf("commit %s: accepted", name)
		}
	}
}
