package wire

import (
	"errors"
	"testing"
)

func sampleWrapsDelete() *WrapsDelete {
	d := &WrapsDelete{Workspace: testID("ws"), Group: testID("g"), Tags: []ID{testID("t1"), testID("t2")}}
	d.Sign(testKey("admin"))
	return d
}

// TestWrapsDeleteSignature: the signature covers workspace, group, tags and
// key; any change is refused; more than MaxWrapTags tags do not decode.
func TestWrapsDeleteSignature(t *testing.T) {
	d := sampleWrapsDelete()
	if err := d.VerifySignature(); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(*WrapsDelete){
		"workspace": func(d *WrapsDelete) { d.Workspace = testID("other") },
		"group":     func(d *WrapsDelete) { d.Group = testID("other") },
		"tag":       func(d *WrapsDelete) { d.Tags[1] = testID("t3") },
		"fewer":     func(d *WrapsDelete) { d.Tags = d.Tags[:1] },
	} {
		c := sampleWrapsDelete()
		edit(c)
		if err := c.VerifySignature(); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: %v", name, err)
		}
	}
	many := &WrapsDelete{Workspace: testID("ws"), Group: testID("g"), Tags: make([]ID, MaxWrapTags+1)}
	many.Sign(testKey("admin"))
	var w writer
	many.encode(&w)
	if _, err := DecodeWrapsDelete(w.Bytes()); err == nil {
		t.Fatal("a WrapsDelete with too many tags decoded")
	}
	if _, ok := WrapTag([]byte{1, 2}); ok {
		t.Fatal("a short ct has a tag")
	}
	ct := append([]byte{1}, make([]byte, 40)...)
	ct[1] = 9
	if tag, ok := WrapTag(ct); !ok || tag[0] != 9 {
		t.Fatal("tag not read")
	}
}

func sampleDirDrop() *RecoveryDirDrop {
	d := &RecoveryDirDrop{Workspace: testID("ws"), Owner: testID("rec"), Groups: []ID{testID("g"), testID("g2")}}
	d.Sign(testKey("admin"))
	return d
}

// A directory drop's signature covers every field, and it decodes back.
func TestRecoveryDirDropSignature(t *testing.T) {
	d := sampleDirDrop()
	if err := d.VerifySignature(); err != nil {
		t.Fatal(err)
	}
	back, err := DecodeRecoveryDirDrop(d.Encode())
	if err != nil || back.Hash() != d.Hash() {
		t.Fatalf("decode: %v", err)
	}
	for _, mutate := range []func(*RecoveryDirDrop){
		func(x *RecoveryDirDrop) { x.Owner = testID("other") },
		func(x *RecoveryDirDrop) { x.Groups = x.Groups[:1] },
		func(x *RecoveryDirDrop) { x.Workspace = testID("ws2") },
	} {
		x := back
		x.Groups = append([]ID(nil), back.Groups...)
		mutate(&x)
		if x.VerifySignature() == nil {
			t.Fatal("a changed drop still verifies")
		}
	}
}
