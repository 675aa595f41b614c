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
