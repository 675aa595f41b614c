package store

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzLegacyKey: any kv key of a state.db is either parsed to exactly one
// destination or refused; never a panic.
func FuzzLegacyKey(f *testing.F) {
	for k := range legacyKV {
		f.Add(k)
	}
	f.Add("shardlog/" + gHex + "/1/2/-1")
	f.Add("group/zz")
	f.Fuzz(func(t *testing.T, k string) {
		lk, ok := parseLegacyKey(k)
		if !ok {
			return
		}
		n := 0
		for _, set := range []bool{lk.record != nil, lk.group != nil, lk.ref != nil, lk.shard != nil} {
			if set {
				n++
			}
		}
		if n != 1 || (lk.change && lk.shard == nil) || lk.n < 0 {
			t.Fatalf("%q parsed to %+v", k, lk)
		}
	})
}

// FuzzOpenSealed: any bytes read back from disk either open to the value
// sealed under that row or fail with store/unreadable; never a panic.
func FuzzOpenSealed(f *testing.F) {
	s, err := newSealer(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		f.Fatal(err)
	}
	good, _ := s.seal("groups", []byte("g"), []byte("state"))
	f.Add(good, []byte("g"))
	f.Add(good[:10], []byte("g"))
	f.Add([]byte{}, []byte{})
	f.Fuzz(func(t *testing.T, sealed, name []byte) {
		v, err := s.open("groups", name, sealed)
		if err != nil {
			if !errors.Is(err, ErrUnreadable) {
				t.Fatalf("error %v", err)
			}
			return
		}
		if string(name) != "g" || string(v) != "state" { // only what was sealed under that row opens
			t.Fatalf("opened %q under %q", v, name)
		}
	})
}
