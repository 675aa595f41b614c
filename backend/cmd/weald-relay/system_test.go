package main

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"weald/backend/relayclient"
	"weald/backend/wire"
)

// waitClosed waits for c's connection to end with code within d.
func waitClosed(t *testing.T, c *relayclient.Client, code wire.Code, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := time.After(d)
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				if errors.Is(c.Err(), &wire.Error{Code: code}) {
					return time.Since(start)
				}
				t.Fatalf("events closed: %v, want %s", c.Err(), code)
			}
			if ev.Kind == relayclient.EventDisconnected {
				if !errors.Is(ev.Err, &wire.Error{Code: code}) {
					t.Fatalf("closed with %v, want %s", ev.Err, code)
				}
				return time.Since(start)
			}
		case <-deadline:
			t.Fatalf("connection still open %v after the access set changed", d)
		}
	}
}

// Revocation test (issue 4, "Proof"): once an access set drops a device, its
// open connection closes within 2 s and its reconnects are refused; a voided
// grant cannot connect. On the relay process, SQLite and PostgreSQL.
func TestRevocationClosesWithinTwoSeconds(t *testing.T) {
	t.Parallel()
	for _, engine := range []struct {
		name string
		db   func(*testing.T) string
	}{{"sqlite", sqliteDB}, {"postgres", postgresDB}} {
		t.Run(engine.name, func(t *testing.T) {
			db := engine.db(t)
			p := startProc(t, db, "127.0.0.1:0")
			alice, bob, joiner := seededKey("alice"), seededKey("bob"), seededKey("joiner")
			w := provisionWorkspace(t, db, p.url, alice, bob)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			ca, cb := mustDial(t, p.url, w.id, alice), mustDial(t, p.url, w.id, bob)

			secret := seededKey("invite " + t.Name()).priv // the invite grant key
			v2 := w.set
			v2.Version = 2
			v2.Grants = []wire.ID{wire.ID(secret.Public().(ed25519.PublicKey))}
			wire.SignAccessSet(&v2, alice.priv)
			if _, err := ca.PublishAccessSet(ctx, v2); err != nil {
				t.Fatal(err)
			}
			cg, err := dial(t, p.url, w.id, relayclient.GrantCredential(joiner.priv, secret))
			if err != nil {
				t.Fatalf("grant connect: %v", err)
			}
			// bob is subscribed and idle; the grant connection too.
			if err := cb.Subscribe(ctx, wire.SubscribeItem{Group: wire.ID{1}}); err != nil {
				t.Fatal(err)
			}
			v3 := v2
			v3.Version = 3
			v3.Devices = v3.Devices[:1]
			v3.Grants = nil
			wire.SignAccessSet(&v3, alice.priv)
			if _, err := ca.PublishAccessSet(ctx, v3); err != nil {
				t.Fatal(err)
			}
			db1 := waitClosed(t, cb, wire.CodeAuthRevoked, 2*time.Second)
			dg := waitClosed(t, cg, wire.CodeAuthRevoked, 2*time.Second)
			t.Logf("removed device closed after %v, voided grant after %v", db1.Round(time.Millisecond), dg.Round(time.Millisecond))
			for i := 0; i < 3; i++ {
				if _, err := dial(t, p.url, w.id, relayclient.KeyCredential(bob.priv, wire.PrincipalDevice)); !errors.Is(err, &wire.Error{Code: wire.CodeAuthRevoked}) {
					t.Fatalf("reconnect %d of the removed device: %v, want auth/revoked", i, err)
				}
			}
			if _, err := dial(t, p.url, w.id, relayclient.GrantCredential(joiner.priv, secret)); !errors.Is(err, &wire.Error{Code: wire.CodeAuthRevoked}) {
				t.Fatalf("voided grant connect: %v, want auth/revoked", err)
			}
			// alice is unaffected.
			if _, err := ca.Stats(ctx); err != nil {
				t.Fatalf("admin after the removal: %v", err)
			}
			if got := scrape(t, p.addr, `weald_relay_refused_total{code="auth/revoked"}`); got < 4 {
				t.Fatalf("auth/revoked counted %v times, want at least 4", got)
			}
			ts := time.Now()
			if err := p.term(); err != nil {
				t.Fatalf("SIGTERM: %v", err)
			}
			t.Logf("SIGTERM: exited 0 after %v", time.Since(ts).Round(time.Millisecond))
		})
	}
}

// Two relay processes on one PostgreSQL database: an envelope accepted by
// one reaches a subscriber of the other within a second; a removal accepted
// by one closes the device's connection on the other within 2 s.
func TestTwoRelayProcessesOnePostgres(t *testing.T) {
	t.Parallel()
	db := postgresDB(t)
	pa := startProc(t, db, "127.0.0.1:0")
	pb := startProc(t, db, "127.0.0.1:0")
	alice, bob := seededKey("alice"), seededKey("bob")
	w := provisionWorkspace(t, db, pa.url, alice, bob)
	ca, cb := mustDial(t, pa.url, w.id, alice), mustDial(t, pb.url, w.id, bob)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	g := wire.ID{0xAB}
	if err := cb.Subscribe(ctx, wire.SubscribeItem{Group: g}); err != nil {
		t.Fatal(err)
	}
	var prev wire.ID
	var worst time.Duration
	for i := 1; i <= 10; i++ {
		e := wire.Envelope{Group: g, Kind: wire.KindContent, Ctr: uint64(i), Prev: prev, CT: []byte("across relays")}
		wire.SignEnvelope(&e, alice.priv)
		prev = e.Hash()
		start := time.Now()
		if _, err := ca.Send(ctx, e); err != nil {
			t.Fatal(err)
		}
		var got []wire.SeqEnvelope
		deadline := time.After(time.Second)
		for len(got) == 0 {
			select {
			case ev := <-cb.Events():
				if ev.Kind == relayclient.EventEnvelopes {
					got = ev.Envelopes
				}
			case <-deadline:
				t.Fatalf("envelope %d accepted by relay A did not reach relay B's subscriber within 1 s", i)
			}
		}
		d := time.Since(start)
		if got[0].Seq != uint64(i) || got[0].Envelope.Hash() != prev {
			t.Fatalf("got seq %d, want %d", got[0].Seq, i)
		}
		if d > worst {
			worst = d
		}
	}
	t.Logf("10 envelopes crossed relay processes; slowest send-to-push %v", worst.Round(time.Microsecond))
	v2 := w.set
	v2.Version = 2
	v2.Devices = v2.Devices[:1]
	wire.SignAccessSet(&v2, alice.priv)
	if _, err := ca.PublishAccessSet(ctx, v2); err != nil {
		t.Fatal(err)
	}
	d := waitClosed(t, cb, wire.CodeAuthRevoked, 2*time.Second)
	t.Logf("removal accepted on relay A closed the device on relay B after %v", d.Round(time.Millisecond))
}

// The binary's own surface: /healthz, /metrics, and SIGTERM exits 0.
func TestBinaryHealthMetricsAndShutdown(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	p := startProc(t, db, "127.0.0.1:0", "-max-log-gb", "0.000001", "-retention-days", "30")
	if !strings.Contains(p.stdout.String(), "database sqlite "+db) {
		t.Fatalf("startup does not name the database:\n%s", p.stdout.String())
	}
	if !strings.Contains(p.stdout.String(), "log budget 1000 bytes") {
		t.Fatalf("startup does not show the budget:\n%s", p.stdout.String())
	}
	alice := seededKey("alice")
	w := provisionWorkspace(t, db, p.url, alice)
	c := mustDial(t, p.url, w.id, alice)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g := wire.ID{3}
	var prev wire.ID
	for i := 1; ; i++ {
		e := wire.Envelope{Group: g, Kind: wire.KindContent, Ctr: uint64(i), Prev: prev, CT: make([]byte, 300)}
		wire.SignEnvelope(&e, alice.priv)
		_, err := c.Send(ctx, e)
		if i <= 3 {
			if err != nil {
				t.Fatalf("send %d: %v", i, err)
			}
			prev = e.Hash()
			continue
		}
		var qe *relayclient.QuotaError
		if !errors.As(err, &qe) || qe.LimitBytes != 1000 {
			t.Fatalf("send over the 1000-byte budget: %v", err)
		}
		break
	}
	st, err := c.Stats(ctx)
	if err != nil || st.LogBytes != 900 || st.RetentionDays != 30 {
		t.Fatalf("stats %+v %v", st, err)
	}
	res, err := http.Get("http://" + p.addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(body) != "ok\n" {
		t.Fatalf("healthz %d %q", res.StatusCode, body)
	}
	if v := scrape(t, p.addr, "weald_relay_envelopes_accepted_total"); v != 3 {
		t.Fatalf("accepted = %v", v)
	}
	if v := scrape(t, p.addr, `weald_relay_refused_total{code="quota/log_budget_exhausted"}`); v != 1 {
		t.Fatalf("quota refusals = %v", v)
	}
	if v := scrape(t, p.addr, `weald_relay_workspace_log_bytes{workspace="`+w.id.String()+`"}`); v != 900 {
		t.Fatalf("workspace bytes = %v", v)
	}
	if v := scrape(t, p.addr, "weald_relay_connections"); v != 1 {
		t.Fatalf("connections = %v", v)
	}
	if err := p.term(); err != nil {
		t.Fatalf("SIGTERM exit: %v\n%s", err, p.stderr.String())
	}
	if !strings.Contains(p.stdout.String(), "weald-relay: stopped") {
		t.Fatalf("no clean stop:\n%s", p.stdout.String())
	}
}

func TestBadConfigurationExitsTwo(t *testing.T) {
	t.Parallel()
	bin := relayBinary(t)
	for _, args := range [][]string{{"-max-log-gb", "many"}, {"-listen", "nowhere"}, {"-db", "mysql://x"}, {"provision", "-workspace", "zz"}} {
		cmd := execCommand(bin, args...)
		out, err := cmd.CombinedOutput()
		var ee interface{ ExitCode() int }
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Fatalf("%v: exit %v, want 2\n%s", args, err, out)
		}
		if !strings.Contains(string(out), "weald-relay") {
			t.Fatalf("%v: unclear error %q", args, out)
		}
	}
	cmd := execCommand(bin)
	cmd.Env = append(cmd.Env, "WEALD_RELAY_RETENTION_DAYS=soon")
	out, err := cmd.CombinedOutput()
	var ee interface{ ExitCode() int }
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "WEALD_RELAY_RETENTION_DAYS") {
		t.Fatalf("bad env: %v %s", err, out)
	}
}

func TestProvisionTwiceIsRefused(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	args := []string{"provision", "-db", db, "-workspace", strings.Repeat("ab", 32), "-genesis", hex.EncodeToString(seededKey("provision twice").pub)} // a real key: the relay refuses keys outside the prime-order subgroup
	out, err := execCommand(relayBinary(t), args...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "provisioned workspace abab") {
		t.Fatalf("first provision: %v %s", err, out)
	}
	out, err = execCommand(relayBinary(t), args...).CombinedOutput()
	var ee interface{ ExitCode() int }
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), string(wire.CodeWorkspaceExists)) {
		t.Fatalf("second provision: %v %s", err, out)
	}
}
