package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"weald/backend/relay"
	"weald/backend/wire"
)

// DefaultListen is where the relay listens with no configuration.
const DefaultListen = "127.0.0.1:7447"

// bytesPerGB: the budgets are decimal gigabytes (10^9 bytes).
const bytesPerGB = 1e9

// config is the relay's configuration after flags and environment.
type config struct {
	Listen        string
	DataDir       string
	DB            string // a SQLite path or a postgres:// URL
	MaxLogBytes   int64  // per-workspace ct byte budget; 0 = no budget
	MaxStorage    int64  // blob bytes; 0 = no limit
	MaxRoster     int64  // per-workspace roster bytes; 0 = relay.DefaultMaxRosterBytes
	RetentionDays int    // warning threshold; 0 = no warning
	Limits        limitsConfig
	ShutdownGrace time.Duration
	// PublicHosts are the hosts clients dial for this relay (server.Config.PublicHosts).
	PublicHosts []string
	// Provisioning is who may provision a workspace over the wire.
	Provisioning relay.ProvisionMode
}

type limitsConfig struct {
	MaxFrameBytes   int
	MaxEnvelopes    int
	MaxConnsPerKey  int
	RequestsPerSec  float64
	RequestBurst    int
	MaxSubscription int
}

// usageError is a configuration error: printed with the usage hint, exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// isPostgres reports whether a WEALD_RELAY_DB value names PostgreSQL.
func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// defaultDataDir is $XDG_DATA_HOME/weald-relay or ~/.local/share/weald-relay.
func defaultDataDir(getenv func(string) string) (string, error) {
	if x := getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "weald-relay"), nil
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", usagef("cannot find a data directory: set -data-dir or WEALD_RELAY_DATA_DIR (%v)", err)
		}
		home = h
	}
	return filepath.Join(home, ".local", "share", "weald-relay"), nil
}

// parseGB parses a non-negative decimal number of gigabytes into bytes.
func parseGB(name, s string) (int64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, usagef("%s: %q is not a number of gigabytes (decimals allowed, e.g. 0.5)", name, s)
	}
	if v < 0 {
		return 0, usagef("%s: %q is negative; use 0 for no limit", name, s)
	}
	b := v * bytesPerGB
	if b > math.MaxInt64/2 {
		return 0, usagef("%s: %q is too large", name, s)
	}
	return int64(math.Round(b)), nil
}

func parseDays(name, s string) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, usagef("%s: %q is not a whole number of days", name, s)
	}
	if v < 0 || v > 100000 {
		return 0, usagef("%s: %d days is out of range (0 to 100000; 0 disables the warning)", name, v)
	}
	return v, nil
}

func validListen(name, s string) error {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return usagef("%s: %q is not host:port (e.g. 127.0.0.1:7447 or 127.0.0.1:0)", name, s)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return usagef("%s: port %q is not a number from 0 to 65535", name, port)
	}
	return nil
}

// parseConfig reads flags (which win) and the environment (getenv).
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("weald-relay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		listen    = fs.String("listen", "", "address to listen on, host:port; :0 picks a free port (env WEALD_RELAY_LISTEN; default "+DefaultListen+")")
		dataDir   = fs.String("data-dir", "", "data directory for the default SQLite database (env WEALD_RELAY_DATA_DIR; default $XDG_DATA_HOME/weald-relay or ~/.local/share/weald-relay)")
		db        = fs.String("db", "", "SQLite file path or postgres:// URL (env WEALD_RELAY_DB; default <data-dir>/relay.db)")
		maxLog    = fs.String("max-log-gb", "", "per-workspace ceiling on envelope ct bytes, decimal GB, 0 = none (env WEALD_RELAY_MAX_LOG_GB)")
		maxRoster = fs.String("max-roster-mb", "", "per-workspace ceiling on roster operation bytes, whole MB (10^6 bytes), 0 = the default 64 MiB (env WEALD_RELAY_MAX_ROSTER_MB)")
		maxStore  = fs.String("max-storage-gb", "", "ceiling on finalized blob bytes, decimal GB, 0 = none (env WEALD_RELAY_MAX_STORAGE_GB)")
		retention = fs.String("retention-days", "", "warn (stats, metrics) about envelopes older than this many days; never deletes (env WEALD_RELAY_RETENTION_DAYS)")
		frame     = fs.Int("max-frame-bytes", 17<<20, "largest request frame accepted (limit/frame_size)")
		envs      = fs.Int("max-envelopes", 256, "most envelopes in one SEND (limit/envelopes_per_request)")
		conns     = fs.Int("max-conns-per-key", 16, "most open connections per key (limit/connections_per_key)")
		rate      = fs.Float64("rate", 200, "requests per second per connection, sustained (limit/request_rate)")
		burst     = fs.Int("burst", 400, "request burst per connection")
		grace     = fs.Duration("shutdown-grace", 5*time.Second, "how long SIGTERM waits for connections to finish")
		provMode  = fs.String("provisioning", "", "who may create a workspace: operator (only weald-relay provision), token (holders of a relay link from weald-relay token create) or open (anyone who can reach the relay: private deployments only) (env WEALD_RELAY_PROVISIONING; default operator)")
		public    = fs.String("public-host", "", "host[:port] clients dial for this relay, comma-separated; AUTH must name one (env WEALD_RELAY_PUBLIC_HOST; default: the Host header of each request)")
	)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return config{}, err
		}
		return config{}, usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return config{}, usagef("unexpected argument %q", fs.Arg(0))
	}
	pick := func(flagVal, env string) (string, string) {
		if flagVal != "" {
			return flagVal, "-" + strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(env, "WEALD_RELAY_"), "_", "-"))
		}
		return getenv(env), env
	}
	var c config
	var name string
	if c.Listen, name = pick(*listen, "WEALD_RELAY_LISTEN"); c.Listen == "" {
		c.Listen = DefaultListen
	} else if err := validListen(name, c.Listen); err != nil {
		return config{}, err
	}
	choice, err := resolveDB(*db, *dataDir, getenv)
	if err != nil {
		return config{}, err
	}
	c.DB, c.DataDir = choice.path, choice.dataDir
	if v, n := pick(*maxLog, "WEALD_RELAY_MAX_LOG_GB"); v != "" {
		if c.MaxLogBytes, err = parseGB(n, v); err != nil {
			return config{}, err
		}
	}
	if v, n := pick(*maxRoster, "WEALD_RELAY_MAX_ROSTER_MB"); v != "" {
		mb, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
		if err != nil {
			return config{}, usagef("%s: %q is not a whole number of megabytes", n, v)
		}
		c.MaxRoster = int64(mb) * 1_000_000
	}
	if v, n := pick(*maxStore, "WEALD_RELAY_MAX_STORAGE_GB"); v != "" {
		if c.MaxStorage, err = parseGB(n, v); err != nil {
			return config{}, err
		}
	}
	if v, n := pick(*retention, "WEALD_RELAY_RETENTION_DAYS"); v != "" {
		if c.RetentionDays, err = parseDays(n, v); err != nil {
			return config{}, err
		}
	}
	if v, n := pick(*public, "WEALD_RELAY_PUBLIC_HOST"); v != "" {
		if c.PublicHosts, err = parsePublicHosts(n, v); err != nil {
			return config{}, err
		}
	}
	pv, pn := pick(*provMode, "WEALD_RELAY_PROVISIONING")
	if c.Provisioning, err = relay.ParseProvisionMode(strings.TrimSpace(pv)); err != nil {
		return config{}, usagef("%s: %v", pn, err)
	}
	c.Limits = limitsConfig{MaxFrameBytes: *frame, MaxEnvelopes: *envs, MaxConnsPerKey: *conns,
		RequestsPerSec: *rate, RequestBurst: *burst}
	switch {
	case *frame < 4096:
		return config{}, usagef("-max-frame-bytes: %d is below the 4096-byte minimum", *frame)
	case *envs < 1:
		return config{}, usagef("-max-envelopes: must be at least 1")
	case *conns < 1:
		return config{}, usagef("-max-conns-per-key: must be at least 1")
	case !(*rate > 0) || math.IsInf(*rate, 0):
		return config{}, usagef("-rate: must be a positive number of requests per second")
	case *burst < 1:
		return config{}, usagef("-burst: must be at least 1")
	case *grace < 0:
		return config{}, usagef("-shutdown-grace: must not be negative")
	}
	c.ShutdownGrace = *grace
	return c, nil
}

// parsePublicHosts reads a comma-separated list of hosts (host or
// host:port), each in the form AUTH binds (wire.CanonicalHost).
func parsePublicHosts(name, s string) ([]string, error) {
	var out []string
	for _, h := range strings.Split(s, ",") {
		c := wire.CanonicalHost(h)
		if c == "" || strings.Contains(h, "/") {
			return nil, usagef("%s: %q is not a host or host:port (e.g. relay.example.com or relay.example.com:8443)", name, strings.TrimSpace(h))
		}
		out = append(out, c)
	}
	return out, nil
}

type dbChoice struct{ path, dataDir string }

// resolveDB picks the database from -db / WEALD_RELAY_DB, defaulting to
// relay.db in -data-dir / WEALD_RELAY_DATA_DIR / the user's data directory.
func resolveDB(flagDB, flagDataDir string, getenv func(string) string) (dbChoice, error) {
	var c dbChoice
	if c.dataDir = flagDataDir; c.dataDir == "" {
		c.dataDir = getenv("WEALD_RELAY_DATA_DIR")
	}
	if c.dataDir == "" {
		d, err := defaultDataDir(getenv)
		if err != nil {
			return c, err
		}
		c.dataDir = d
	}
	name := "-db"
	if c.path = flagDB; c.path == "" {
		c.path, name = getenv("WEALD_RELAY_DB"), "WEALD_RELAY_DB"
	}
	switch {
	case c.path == "":
		c.path = filepath.Join(c.dataDir, "relay.db")
	case isPostgres(c.path):
	case strings.Contains(c.path, "://"):
		return c, usagef("%s: %q is neither a SQLite file path nor a postgres:// URL", name, c.path)
	}
	return c, nil
}
