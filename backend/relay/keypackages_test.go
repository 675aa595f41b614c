package relay

import (
	"bytes"
	"testing"
	"time"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// A member (bob) tries to drain another device's (alice's) one-use key
// packages, so that nobody can add alice with a fresh one. Past the claim
// burst the relay refuses with limit/rate, and alice keeps the rest. A grant
// connection and a recovery key may not claim at all. On main at 0478711
// every claim by any principal succeeded (bob drained all 100).
func TestMemberCannotDrainAnotherDevicesKeyPackages(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		alice, bob := principal("alice"), principal("bob")
		items := make([]wire.KeyPackageItem, 100)
		for i := range items {
			items[i].KeyPackage = []byte{'k', byte(i)}
		}
		if _, err := f.svc.KeyPackagePut(f.ctx, f.ws, alice, items); err != nil {
			t.Fatal(err)
		}
		claimed := 0
		var refusal error
		for i := 0; i < 100; i++ {
			if _, refusal = f.svc.KeyPackageClaim(f.ctx, f.ws, bob, alice.Principal); refusal != nil {
				break
			}
			claimed++
		}
		if claimed != DefaultClaimBurst {
			t.Fatalf("bob claimed %d of alice's packages at once, want the burst %d", claimed, DefaultClaimBurst)
		}
		if we := wantCode(t, refusal, wire.CodeLimitRate); we != nil {
			if ms, _ := we.UintField("retry_after_ms"); ms == 0 || ms > uint64(DefaultClaimInterval.Milliseconds())+1 {
				t.Errorf("retry_after_ms = %d", ms)
			}
		}
		var left int
		if err := st.View(f.ctx, func(tx store.Tx) error {
			var err error
			left, _, err = tx.KeyPackageStock(f.ctx, f.ws, alice.Principal)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if left != 100-DefaultClaimBurst {
			t.Fatalf("alice has %d packages left, want %d", left, 100-DefaultClaimBurst)
		}
		// One more per interval.
		f.clock.advance(DefaultClaimInterval)
		if _, err := f.svc.KeyPackageClaim(f.ctx, f.ws, bob, alice.Principal); err != nil {
			t.Fatalf("after an interval: %v", err)
		}
		wantCode(t, errOf(f.svc.KeyPackageClaim(f.ctx, f.ws, bob, alice.Principal)), wire.CodeLimitRate)
		// The limit is per owner: bob's own packages are still claimable.
		if _, err := f.svc.KeyPackagePut(f.ctx, f.ws, bob, items[:1]); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.KeyPackageClaim(f.ctx, f.ws, alice, bob.Principal); err != nil {
			t.Fatalf("claim of another owner: %v", err)
		}

		grant := wire.AuthOK{Kind: wire.PrincipalGrant, Principal: wire.KeyID(pub(key("joiner")))}
		rec := wire.AuthOK{Kind: wire.PrincipalRecovery, Principal: wire.KeyID(pub(key("recovery")))}
		stranger := principal("stranger")
		wantCode(t, errOf(f.svc.KeyPackageClaim(f.ctx, f.ws, grant, bob.Principal)), wire.CodeKeyPackageKind)
		wantCode(t, errOf(f.svc.KeyPackageClaim(f.ctx, f.ws, rec, bob.Principal)), wire.CodeKeyPackageKind)
		wantCode(t, errOf(f.svc.KeyPackageClaim(f.ctx, f.ws, stranger, bob.Principal)), wire.CodeAuthRevoked)
	})
}

// A device fills the workspace with key packages up to the byte bound; the
// put that would pass it is refused whole. On main at 0478711 key packages
// were outside every byte bound (1024 × 64 KiB per key, any number of keys).
func TestKeyPackageBytesAreBoundedPerWorkspace(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, func(c *Config) { c.MaxKeyPackageBytes = 10_000 })
		alice, bob := principal("alice"), principal("bob")
		kp := func(n int, b byte) []wire.KeyPackageItem {
			return []wire.KeyPackageItem{{KeyPackage: bytes.Repeat([]byte{b}, n)}}
		}
		if _, err := f.svc.KeyPackagePut(f.ctx, f.ws, alice, kp(6_000, 'a')); err != nil {
			t.Fatal(err)
		}
		we := wantCode(t, errOf(f.svc.KeyPackagePut(f.ctx, f.ws, bob, kp(4_001, 'b'))), wire.CodeLimitKeyPackageBytes)
		if v, _ := we.UintField("limit_bytes"); v != 10_000 {
			t.Errorf("limit_bytes = %d", v)
		}
		if _, err := f.svc.KeyPackagePut(f.ctx, f.ws, bob, kp(4_000, 'b')); err != nil {
			t.Fatalf("a put that fits: %v", err)
		}
		// A claim frees its bytes.
		f.clock.advance(time.Minute)
		if _, err := f.svc.KeyPackageClaim(f.ctx, f.ws, bob, alice.Principal); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.KeyPackagePut(f.ctx, f.ws, bob, kp(6_000, 'c')); err != nil {
			t.Fatalf("after a claim: %v", err)
		}
	})
}

// A batch of claims is judged as its entries would be one by one: the same
// principals may claim, each entry spends one claim of its owner's rate
// (all or none: a batch past the rate is refused whole and spends
// nothing), and an owner with nothing left answers that entry not found.
func TestKeyPackageClaimBatchKeepsEachClaimsChecks(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		alice, bob := principal("alice"), principal("bob")
		items := make([]wire.KeyPackageItem, 70)
		for i := range items {
			items[i].KeyPackage = []byte{'k', byte(i)}
		}
		if _, err := f.svc.KeyPackagePut(f.ctx, f.ws, alice, items); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.KeyPackagePut(f.ctx, f.ws, bob, []wire.KeyPackageItem{{KeyPackage: []byte("lr"), LastResort: true}}); err != nil {
			t.Fatal(err)
		}
		owners := func(o wire.ID, n int) []wire.ID {
			out := make([]wire.ID, n)
			for i := range out {
				out[i] = o
			}
			return out
		}
		// Past alice's burst: refused whole, nothing spent or claimed.
		wantCode(t, errOf(f.svc.KeyPackageClaimBatch(f.ctx, f.ws, bob, owners(alice.Principal, DefaultClaimBurst+1))), wire.CodeLimitRate)
		got, err := f.svc.KeyPackageClaimBatch(f.ctx, f.ws, bob, append(owners(alice.Principal, 20), bob.Principal, bob.Principal))
		if err != nil {
			t.Fatal(err)
		}
		for i, it := range got[:20] {
			if !it.Found || it.Owner != alice.Principal || it.LastResort || !bytes.Equal(it.KeyPackage, []byte{'k', byte(i)}) {
				t.Fatalf("entry %d: %+v", i, it)
			}
		}
		for _, it := range got[20:] { // bob's last resort, kept, twice
			if !it.Found || !it.LastResort || string(it.KeyPackage) != "lr" {
				t.Fatalf("bob's entry: %+v", it)
			}
		}
		// 44 of alice's burst are left: 44 more go, the 45th is refused.
		if _, err := f.svc.KeyPackageClaimBatch(f.ctx, f.ws, bob, owners(alice.Principal, DefaultClaimBurst-20)); err != nil {
			t.Fatalf("the rest of the burst: %v", err)
		}
		wantCode(t, errOf(f.svc.KeyPackageClaim(f.ctx, f.ws, bob, alice.Principal)), wire.CodeLimitRate)
		// Nothing left: not found, not a refusal.
		f.clock.advance(time.Hour)
		got, err = f.svc.KeyPackageClaimBatch(f.ctx, f.ws, bob, owners(alice.Principal, 7))
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, it := range got {
			if it.Found {
				found++
			}
		}
		if found != 70-DefaultClaimBurst {
			t.Fatalf("%d of the last 7 found, want %d", found, 70-DefaultClaimBurst)
		}
		grant := wire.AuthOK{Kind: wire.PrincipalGrant, Principal: wire.KeyID(pub(key("joiner")))}
		wantCode(t, errOf(f.svc.KeyPackageClaimBatch(f.ctx, f.ws, grant, []wire.ID{bob.Principal})), wire.CodeKeyPackageKind)
		wantCode(t, errOf(f.svc.KeyPackageClaimBatch(f.ctx, f.ws, principal("stranger"), []wire.ID{bob.Principal})), wire.CodeAuthRevoked)
		wantCode(t, errOf(f.svc.KeyPackageClaimBatch(f.ctx, f.ws, bob, owners(alice.Principal, wire.MaxClaimBatch+1))), wire.CodeLimitBatchSize)
	})
}
