package engine

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"weald/backend/wire"
)

// The creator's recovery phrase is there as soon as CreateWorkspace
// returns, even before the relay is provisioned; it is handed out once, and
// the principal the bootstrap registers later is the one it derives.
func TestRecoveryPhraseAtCreation(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	opts := r.options(t, "dana", 70)
	opts.Provision = nil // the operator provisions later
	e, err := CreateWorkspace(ctx, opts, "Acme", r.URL)
	if !errors.Is(err, ErrNotProvisioned) {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	words, err := e.TakeRecoveryPhrase(ctx)
	if err != nil || len(strings.Fields(words)) != 24 {
		t.Fatalf("phrase %d words, %v", len(strings.Fields(words)), err)
	}
	if again, _ := e.TakeRecoveryPhrase(ctx); again != "" {
		t.Fatal("the phrase was handed out twice")
	}
	gen, err := hex.DecodeString(e.Status().GenesisKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.svc.ProvisionWorkspace(ctx, wire.ID(e.wsID()), gen); err != nil {
		t.Fatal(err)
	}
	if rep, err := e.Sync(ctx); err != nil || !rep.Ready {
		t.Fatalf("sync: %+v %v", rep, err)
	}
	if again, _ := e.TakeRecoveryPhrase(ctx); again != "" {
		t.Fatal("the phrase came back after the bootstrap")
	}
	keys := mustRecoveryKeys(t, words)
	e.mu.Lock()
	rec, ok := e.recoveryKeys()
	stored := e.meta.Phrase
	e.mu.Unlock()
	if !ok || string(rec.Public.Bytes()) != string(keys.Signature.Public().Bytes()) {
		t.Fatal("the registered recovery principal is not the phrase's")
	}
	if stored != "" {
		t.Fatal("the phrase is still stored after it was shown and registered")
	}
}
