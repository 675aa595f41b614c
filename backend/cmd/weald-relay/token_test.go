package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"weald/backend/relay"
	"weald/backend/relay/store"
	"weald/backend/relayclient"
	"weald/backend/wire"
)

// TestTokenCreatePrintsAWorkingLink (issue 15): `weald-relay token create
// -uses 2` prints one relay link naming the relay and a token whose hash
// the database holds; a relay in token mode on that database provisions
// two workspaces with it and refuses a third (provision/token_used_up).
func TestTokenCreatePrintsAWorkingLink(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "relay.db")
	env := envOf(map[string]string{"WEALD_RELAY_PUBLIC_HOST": "relay.example.org", "WEALD_RELAY_PROVISIONING": "token"})
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"token", "create", "-uses", "2", "-expires", "1h", "-db", db}, env, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	text := strings.TrimSpace(out.String())
	if strings.Contains(text, "\n") {
		t.Fatalf("stdout holds more than the link: %q", text)
	}
	l, err := relayclient.ParseRelayLink(text)
	if err != nil {
		t.Fatalf("the printed link %q: %v", text, err)
	}
	if l.Relay != "wss://relay.example.org/v1/ws" || len(l.Token) != relay.TokenSize {
		t.Fatalf("link %+v", l)
	}
	if !strings.Contains(errOut.String(), "up to 2 workspace(s)") || strings.Contains(errOut.String(), "note:") {
		t.Errorf("stderr: %s", errOut.String())
	}
	st, err := store.OpenSQLite(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := relay.New(relay.Config{Store: st, Provisioning: relay.ProvisionToken})
	gen := ed25519.NewKeyFromSeed(make([]byte, 32)).Public().(ed25519.PublicKey)
	for i, want := range []wire.Code{"", "", wire.CodeProvisionTokenUsedUp} {
		err := svc.Provision(context.Background(), wire.ID{byte(i + 1)}, gen, l.Token)
		if c, _ := errCodeOf(err); c != want {
			t.Fatalf("provision %d: %v, want %q", i, err, want)
		}
	}
}

func errCodeOf(err error) (wire.Code, bool) {
	if err == nil {
		return "", true
	}
	we, ok := err.(*wire.Error)
	if !ok {
		return "internal", false
	}
	return we.Code, true
}

// TestTokenCreateRefusesBadUsage: bad flags exit 2 with one sentence and
// store nothing; a listen address nobody can dial needs -relay.
func TestTokenCreateRefusesBadUsage(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "relay.db")
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"-uses", "0"}, nil, "-uses"},
		{[]string{"-expires", "-1h"}, nil, "-expires"},
		{[]string{"-expires", "soon"}, nil, "expires"},
		{[]string{"-relay", "ftp://x"}, nil, "-relay"},
		{nil, map[string]string{"WEALD_RELAY_LISTEN": "0.0.0.0:7447"}, "-relay"},
		{[]string{"extra"}, nil, "unexpected argument"},
	} {
		var errOut bytes.Buffer
		args := append([]string{"token", "create", "-db", db}, c.args...)
		if code := run(context.Background(), args, envOf(c.env), io.Discard, &errOut); code != 2 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%q: exit %d, %q; want 2 naming %s", c.args, code, errOut.String(), c.want)
		}
	}
	// The default listen address makes a loopback link.
	var out bytes.Buffer
	if code := run(context.Background(), []string{"token", "create", "-db", db}, envOf(nil), &out, io.Discard); code != 0 {
		t.Fatalf("default: exit %d", code)
	}
	if !strings.Contains(out.String(), "relay=ws%3A%2F%2F127.0.0.1%3A7447%2Fv1%2Fws") {
		t.Errorf("default link: %s", out.String())
	}
}

// TestProvisioningMode: -provisioning and WEALD_RELAY_PROVISIONING choose
// the mode (the flag wins); operator is the default; anything else is
// refused naming the flag or variable.
func TestProvisioningMode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		env  map[string]string
		want relay.ProvisionMode
		err  string
	}{
		{nil, nil, relay.ProvisionOperator, ""},
		{nil, map[string]string{"WEALD_RELAY_PROVISIONING": "token"}, relay.ProvisionToken, ""},
		{[]string{"-provisioning", "open"}, map[string]string{"WEALD_RELAY_PROVISIONING": "token"}, relay.ProvisionOpen, ""},
		{nil, map[string]string{"WEALD_RELAY_PROVISIONING": "anyone"}, "", "WEALD_RELAY_PROVISIONING"},
		{[]string{"-provisioning", "Token"}, nil, "", "-provisioning"},
	} {
		env := map[string]string{"HOME": "/home/u"}
		for k, v := range c.env {
			env[k] = v
		}
		cfg, err := parseConfig(c.args, envOf(env), io.Discard)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q %v: %v, want an error naming %s", c.args, c.env, err, c.err)
		case c.err == "" && (err != nil || cfg.Provisioning != c.want):
			t.Errorf("%q %v: %q %v, want %q", c.args, c.env, cfg.Provisioning, err, c.want)
		}
	}
}
