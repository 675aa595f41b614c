package main

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	c, err := parseConfig(nil, envOf(map[string]string{"HOME": "/home/u"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != DefaultListen {
		t.Errorf("listen = %q", c.Listen)
	}
	if want := "/home/u/.local/share/weald-relay"; c.DataDir != want {
		t.Errorf("data dir = %q, want %q", c.DataDir, want)
	}
	if c.DB != filepath.Join(c.DataDir, "relay.db") || isPostgres(c.DB) {
		t.Errorf("db = %q", c.DB)
	}
	if c.MaxLogBytes != 0 || c.MaxStorage != 0 || c.RetentionDays != 0 {
		t.Errorf("limits not zero: %+v", c)
	}
	c, err = parseConfig(nil, envOf(map[string]string{"HOME": "/home/u", "XDG_DATA_HOME": "/xdg"}), io.Discard)
	if err != nil || c.DataDir != "/xdg/weald-relay" {
		t.Fatalf("xdg data dir = %q, %v", c.DataDir, err)
	}
}

func TestConfigEnvAndFlagsOverride(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{
		"HOME":                       "/h",
		"WEALD_RELAY_LISTEN":         "127.0.0.1:0",
		"WEALD_RELAY_DB":             "postgres://u@127.0.0.1:5432/relay",
		"WEALD_RELAY_MAX_LOG_GB":     "0.5",
		"WEALD_RELAY_MAX_STORAGE_GB": "2",
		"WEALD_RELAY_RETENTION_DAYS": "30",
		"WEALD_RELAY_MAX_ROSTER_MB":  "8",
		"WEALD_RELAY_PUBLIC_HOST":    "Relay.Example.COM, relay.example.com:8443",
	})
	c, err := parseConfig(nil, env, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:0" || !isPostgres(c.DB) || c.MaxLogBytes != 500_000_000 ||
		c.MaxStorage != 2_000_000_000 || c.RetentionDays != 30 || c.MaxRoster != 8_000_000 ||
		strings.Join(c.PublicHosts, " ") != "relay.example.com relay.example.com:8443" {
		t.Fatalf("env not applied: %+v", c)
	}
	c, err = parseConfig([]string{"-listen", "127.0.0.1:9999", "-db", "/tmp/x.db", "-max-log-gb", "1.25",
		"-max-storage-gb", "0", "-retention-days", "7"}, env, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:9999" || c.DB != "/tmp/x.db" || c.MaxLogBytes != 1_250_000_000 ||
		c.MaxStorage != 0 || c.RetentionDays != 7 {
		t.Fatalf("flags did not override env: %+v", c)
	}
}

func TestConfigBadValues(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{env: map[string]string{"WEALD_RELAY_MAX_LOG_GB": "lots"}, want: "WEALD_RELAY_MAX_LOG_GB"},
		{env: map[string]string{"WEALD_RELAY_MAX_ROSTER_MB": "-1"}, want: "whole number of megabytes"},
		{env: map[string]string{"WEALD_RELAY_MAX_LOG_GB": "-1"}, want: "negative"},
		{env: map[string]string{"WEALD_RELAY_MAX_LOG_GB": "NaN"}, want: "not a number"},
		{env: map[string]string{"WEALD_RELAY_MAX_STORAGE_GB": "1e300"}, want: "too large"},
		{args: []string{"-max-storage-gb", "x"}, want: "-max-storage-gb"},
		{env: map[string]string{"WEALD_RELAY_RETENTION_DAYS": "1.5"}, want: "whole number"},
		{env: map[string]string{"WEALD_RELAY_RETENTION_DAYS": "-3"}, want: "out of range"},
		{env: map[string]string{"WEALD_RELAY_LISTEN": "nope"}, want: "host:port"},
		{args: []string{"-listen", "127.0.0.1:70000"}, want: "65535"},
		{env: map[string]string{"WEALD_RELAY_DB": "mysql://x"}, want: "neither"},
		{args: []string{"-rate", "0"}, want: "-rate"},
		{args: []string{"-max-frame-bytes", "10"}, want: "4096"},
		{args: []string{"-no-such-flag"}, want: "no-such-flag"},
		{args: []string{"stray"}, want: "unexpected argument"},
		{env: map[string]string{"WEALD_RELAY_PUBLIC_HOST": "wss://relay.example.com/v1/ws"}, want: "WEALD_RELAY_PUBLIC_HOST"},
		{args: []string{"-public-host", "relay.example.com,"}, want: "-public-host"},
	}
	for _, tc := range cases {
		env := map[string]string{"HOME": "/h"}
		for k, v := range tc.env {
			env[k] = v
		}
		_, err := parseConfig(tc.args, envOf(env), io.Discard)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("%v %v: err = %v, want a usage error", tc.args, tc.env, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: error %q does not mention %q", tc.args, tc.env, err, tc.want)
		}
	}
}
