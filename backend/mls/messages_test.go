package mls

import (
	"bytes"
	"testing"

	"weald/backend/internal/codec"
	"weald/backend/mls/framing"
	"weald/backend/mls/internal/mlstest"
	"weald/backend/mls/proposal"
	"weald/backend/mls/tree"
)

// TestMessagesVectors decodes every wire object of messages.json with the
// decoder of the package that defines it and checks that re-encoding gives
// the same bytes (the vectors carry no cipher suite: all cases run).
func TestMessagesVectors(t *testing.T) {
	var cases []map[string]hexb
	mlstest.Load(t, "messages.json", &cases)
	cs, err := newCipher(1, nil) // tree decoding needs a suite; encoding does not depend on it
	if err != nil {
		t.Fatal(err)
	}
	roundTrip := func(i int, name string, in []byte, decode func([]byte) ([]byte, error)) {
		t.Helper()
		out, err := decode(in)
		if err != nil {
			t.Fatalf("case %d %s: %v", i, name, err)
		}
		if !bytes.Equal(out, in) {
			t.Fatalf("case %d %s: re-encoding differs", i, name)
		}
	}
	mlsMessage := func(b []byte) ([]byte, error) {
		m, err := framing.DecodeMLSMessage(b)
		if err != nil {
			return nil, err
		}
		// Decode the bodies framing carries raw with their own packages.
		switch m.WireFormat {
		case framing.WireFormatWelcome:
			wl, err := DecodeWelcome(m.Body)
			if err != nil {
				return nil, err
			}
			m.Body = wl.Bytes()
		case framing.WireFormatGroupInfo:
			gi, err := DecodeGroupInfo(m.Body)
			if err != nil {
				return nil, err
			}
			m.Body = gi.Bytes()
		case framing.WireFormatKeyPackage:
			kp, err := tree.DecodeKeyPackage(m.Body)
			if err != nil {
				return nil, err
			}
			m.Body = kp.Bytes()
		}
		return m.Bytes(), nil
	}
	body := func(typ proposal.Type) func([]byte) ([]byte, error) {
		return func(b []byte) ([]byte, error) {
			p, err := proposal.DecodeBody(typ, b)
			if err != nil {
				return nil, err
			}
			return p.BodyBytes(), nil
		}
	}
	n := 0
	for i, c := range cases {
		t.Run(mlstest.Case(i), func(t *testing.T) {
			for _, f := range []string{"mls_welcome", "mls_group_info", "mls_key_package",
				"public_message_application", "public_message_proposal", "public_message_commit", "private_message"} {
				roundTrip(i, f, c[f], mlsMessage)
			}
			roundTrip(i, "ratchet_tree", c["ratchet_tree"], func(b []byte) ([]byte, error) {
				rt, err := tree.DecodeRatchetTree(cs, b)
				if err != nil {
					return nil, err
				}
				return rt.RatchetTreeBytes(), nil
			})
			roundTrip(i, "group_secrets", c["group_secrets"], func(b []byte) ([]byte, error) {
				gs, err := DecodeGroupSecrets(b)
				if err != nil {
					return nil, err
				}
				w := codec.NewWriter(nil)
				gs.Encode(w)
				return w.Bytes(), nil
			})
			for f, typ := range map[string]proposal.Type{
				"add_proposal": proposal.TypeAdd, "update_proposal": proposal.TypeUpdate,
				"remove_proposal": proposal.TypeRemove, "pre_shared_key_proposal": proposal.TypePreSharedKey,
				"re_init_proposal": proposal.TypeReInit, "external_init_proposal": proposal.TypeExternalInit,
				"group_context_extensions_proposal": proposal.TypeGroupContextExtensions,
			} {
				roundTrip(i, f, c[f], body(typ))
			}
			roundTrip(i, "commit", c["commit"], func(b []byte) ([]byte, error) {
				cm, err := proposal.DecodeCommit(b)
				if err != nil {
					return nil, err
				}
				return cm.Bytes(), nil
			})
			n++
		})
	}
	t.Logf("messages.json: %d cases ran (17 objects each), 0 n/a", n)
	if n == 0 {
		t.Fatal("no case ran")
	}
}
