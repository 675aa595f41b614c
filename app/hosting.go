package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"weald/app/hostrelay"
	"weald/backend/engine"
	"weald/backend/relayclient"
	"weald/backend/wire"
)

// hosting is the relay this app runs itself ("Host on this computer",
// issue 15): started by the first hosted create, then again on every
// launch before the workspaces open, on the same port (workspaces keep
// their relay's address). Its database is <data>/relay/relay.db.
type hosting struct {
	mu   sync.Mutex
	host *hostrelay.Host
}

// hostSettings is <data>/relay/host.json.
type hostSettings struct {
	Port int  `json:"port"`
	LAN  bool `json:"lan"`
}

func (a *App) hostDir() string { return filepath.Join(a.dataDir, "relay") }

func (a *App) loadHostSettings() (hostSettings, bool) {
	b, err := os.ReadFile(filepath.Join(a.hostDir(), "host.json"))
	if err != nil {
		return hostSettings{}, false
	}
	var s hostSettings
	if json.Unmarshal(b, &s) != nil || s.Port <= 0 || s.Port > 65535 {
		return hostSettings{}, false
	}
	return s, true
}

func (a *App) saveHostSettings(s hostSettings) error {
	b, _ := json.Marshal(s)
	tmp := filepath.Join(a.hostDir(), "host.json.tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(a.hostDir(), "host.json"))
}

// startHosting starts the embedded relay at launch when this app hosts one.
func (a *App) startHosting(ctx context.Context) {
	s, ok := a.loadHostSettings()
	if !ok {
		return
	}
	if _, err := a.ensureHost(ctx, s.LAN); err != nil {
		a.logger.Printf("the relay this computer hosts did not start: %s", err.Message)
	}
}

// ensureHost returns the running embedded relay, starting it (on the saved
// port, if any) or restarting it to listen on the network when lan asks
// for it and it does not yet.
func (a *App) ensureHost(ctx context.Context, lan bool) (*hostrelay.Host, *Error) {
	a.hosting.mu.Lock()
	defer a.hosting.mu.Unlock()
	h := a.hosting.host
	if h != nil && (h.LAN() || !lan) {
		return h, nil
	}
	s, _ := a.loadHostSettings()
	if h != nil {
		s.Port = h.Port()
		h.Close()
		a.hosting.host = nil
	}
	s.LAN = s.LAN || lan
	h, err := hostrelay.Start(ctx, hostrelay.Options{Dir: a.hostDir(), Port: s.Port, LAN: s.LAN,
		Logger: slog.New(slog.NewTextHandler(a.logger.Writer(), &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return nil, &Error{Code: "host/not_started", Message: fmt.Sprintf("Weald could not start the relay on this computer (%v); check that port %d is free and the data directory is writable.", err, s.Port)}
	}
	s.Port = h.Port()
	if err := a.saveHostSettings(s); err != nil {
		h.Close()
		return nil, &Error{Code: "storage/write_failed", Message: fmt.Sprintf("The relay's settings could not be stored (%v); check that the data directory is writable.", err)}
	}
	a.hosting.host = h
	a.logger.Printf("hosting a relay at %s (network: %t)", h.URL, s.LAN)
	return h, nil
}

func (a *App) stopHosting() {
	a.hosting.mu.Lock()
	defer a.hosting.mu.Unlock()
	if a.hosting.host != nil {
		a.hosting.host.Close()
		a.hosting.host = nil
	}
}

// hostFor returns the embedded relay when relayURL is its address.
func (a *App) hostFor(relayURL string) *hostrelay.Host {
	a.hosting.mu.Lock()
	defer a.hosting.mu.Unlock()
	h := a.hosting.host
	if h == nil {
		return nil
	}
	u, err := relayclient.NormalizeAddress(relayURL)
	if err != nil || (u != h.URL && u != h.LANURL()) {
		return nil
	}
	return h
}

// provisioner is the engines' Options.Provision: the app provisions a
// workspace on the relay it hosts itself, and asks any other relay to
// (engine.SelfProvision with the relay link's token, if any).
func (a *App) provisioner(token []byte) func(ctx context.Context, relayURL string, ws wire.ID, genesisPub []byte) error {
	self := engine.SelfProvision(token)
	return func(ctx context.Context, relayURL string, ws wire.ID, genesisPub []byte) error {
		if h := a.hostFor(relayURL); h != nil {
			return h.Provision(ctx, ws, genesisPub)
		}
		return self(ctx, relayURL, ws, genesisPub)
	}
}

// CreateHosted makes a new workspace on a relay this app runs itself
// ("Host on this computer"): the relay starts now and with every launch of
// the app, and the app provisions the workspace, so no operator is
// involved. With lan, the relay also listens on the network and the
// workspace's address (which invite links carry) is this computer's
// network address, so teammates on the same network can join while the
// app runs here; otherwise only this computer reaches it.
func (w *Workspaces) CreateHosted(name, you string, lan bool) (Created, error) {
	w.mu.Lock()
	started, base := w.started, w.ctx
	w.mu.Unlock()
	if !started {
		return Created{}, &Error{Code: "app/not_started", Message: "Weald is still starting; try again in a moment."}
	}
	h, err := w.app.ensureHost(base, lan)
	if err != nil {
		return Created{}, err
	}
	relay := h.URL
	if lan {
		if relay = h.LANURL(); relay == "" {
			return Created{}, &Error{Code: "host/no_network", Message: "This computer has no network address other computers could use; connect to a network, or host for this computer only."}
		}
	}
	return w.Create(name, you, relay)
}
