package tree

import (
	"bytes"
	"errors"
	"testing"

	"weald/backend/internal/codec"
)

func TestCredentialAndCapabilities(t *testing.T) {
	for _, c := range []Credential{
		BasicCredential([]byte("uuid:1@example.test")),
		{Type: CredentialX509, Certificates: [][]byte{{0x30, 1}, {0x30, 2}}},
	} {
		w := codec.NewWriter(nil)
		c.Encode(w)
		r := codec.NewReader(w.Bytes())
		var d Credential
		d.Decode(r)
		if err := r.Done(); err != nil {
			t.Fatal(err)
		}
		w2 := codec.NewWriter(nil)
		d.Encode(w2)
		if !bytes.Equal(w.Bytes(), w2.Bytes()) || d.Type != c.Type {
			t.Fatalf("credential type %d does not round-trip", c.Type)
		}
	}
	r := codec.NewReader([]byte{0x00, 0x07, 0x00})
	var d Credential
	d.Decode(r)
	if err := r.Err(); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("unknown credential type: %v", err)
	}

	rc := &RequiredCapabilities{Extensions: []ExtensionType{9}, Proposals: []uint16{0x0a0a}, Credentials: []CredentialType{CredentialX509}}
	w := codec.NewWriter(nil)
	rc.Encode(w)
	got, err := DecodeRequiredCapabilities(w.Bytes())
	if err != nil || len(got.Extensions) != 1 || got.Proposals[0] != 0x0a0a || got.Credentials[0] != CredentialX509 {
		t.Fatalf("required capabilities round trip: %v", err)
	}
	if _, err := DecodeRequiredCapabilities(append(w.Bytes(), 0)); !errors.Is(err, ErrDecode) {
		t.Fatalf("trailing byte: %v", err)
	}

	caps := Capabilities{Proposals: []uint16{0x0a0a}, Credentials: []CredentialType{CredentialBasic}}
	if !caps.SupportsProposal(3) || !caps.SupportsProposal(0x0a0a) || caps.SupportsProposal(8) {
		t.Fatal("SupportsProposal")
	}
	if !caps.SupportsExtension(ExtExternalSenders) || caps.SupportsExtension(ExtLastResort) {
		t.Fatal("SupportsExtension")
	}

	// Required capabilities are enforced per kind.
	s := newTestSuite(t, 1)
	l, _, _ := newLeaf(t, s, "cap")
	for name, req := range map[string]*RequiredCapabilities{
		"proposal":   {Proposals: []uint16{0x0a0a}},
		"credential": {Credentials: []CredentialType{CredentialX509}},
		"extension":  {Extensions: []ExtensionType{9}},
	} {
		if err := l.Validate(&LeafContext{Suite: s, Required: req}); !errors.Is(err, ErrCapabilities) {
			t.Errorf("required %s: %v", name, err)
		}
	}
	if err := l.Validate(&LeafContext{Suite: s, GroupExtensions: Extensions{{Type: 9}}}); !errors.Is(err, ErrCapabilities) {
		t.Errorf("group extension: %v", err)
	}
	if err := l.Validate(&LeafContext{Suite: s, Source: SourceCommit}); !errors.Is(err, ErrLeafSource) {
		t.Errorf("source: %v", err)
	}
	if err := l.Validate(&LeafContext{Suite: s, Required: &RequiredCapabilities{Proposals: []uint16{1, 7}}}); err != nil {
		t.Errorf("default proposals: %v", err)
	}

	_, tr := simTree(t)
	if i, ok := tr.FindLeaf(func(l *LeafNode) bool { return string(l.Credential.Identity) == "v3" }); !ok || tr.Leaf(i) == nil {
		t.Fatal("FindLeaf")
	}
	if _, ok := tr.FindLeaf(func(*LeafNode) bool { return false }); ok {
		t.Fatal("FindLeaf found nothing but said ok")
	}
	if tr.Suite() == nil {
		t.Fatal("Suite")
	}
}
