package shim

import (
	"encoding/json"
	"strings"
)

// script builds the page script that stands in for the Wails IPC: window.go
// with one async function per bound method, and the subset of window.runtime
// the frontend uses (events, logging, clipboard, links).
func (s *Server) script() string {
	names, _ := json.Marshal(s.Methods())
	return strings.Replace(shimJS, "__METHODS__", string(names), 1)
}

const shimJS = `(function () {
  const methods = __METHODS__;
  async function call(method, args) {
    const r = await fetch('/__weald/call', {method: 'POST', headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({method, args})});
    const body = await r.json();
    if (body.error) throw body.error;
    return body.result;
  }
  window.go = window.go || {};
  for (const full of methods) {
    const [pkg, struct, name] = full.split('.');
    window.go[pkg] = window.go[pkg] || {};
    window.go[pkg][struct] = window.go[pkg][struct] || {};
    window.go[pkg][struct][name] = (...args) => call(full, args);
  }
  const listeners = {};
  function on(name, cb, max) {
    const l = {cb, left: max > 0 ? max : -1};
    (listeners[name] = listeners[name] || []).push(l);
    return () => { listeners[name] = (listeners[name] || []).filter(x => x !== l); };
  }
  function dispatch(name, data) {
    for (const l of (listeners[name] || []).slice()) {
      l.cb(...data);
      if (l.left > 0 && --l.left === 0) listeners[name] = listeners[name].filter(x => x !== l);
    }
  }
  const es = new EventSource('/__weald/events');
  es.onmessage = (e) => { const m = JSON.parse(e.data); dispatch(m.name, m.data || []); };
  const log = (level) => (msg) => console[level]('[weald]', msg);
  window.runtime = {
    EventsOnMultiple: on,
    EventsOff: (name, ...more) => { for (const n of [name, ...more]) delete listeners[n]; },
    EventsOffAll: () => { for (const n of Object.keys(listeners)) delete listeners[n]; },
    EventsEmit: (name, ...data) => dispatch(name, data),
    LogPrint: log('log'), LogTrace: log('debug'), LogDebug: log('debug'), LogInfo: log('info'),
    LogWarning: log('warn'), LogError: log('error'), LogFatal: log('error'),
    WindowSetTitle: (t) => { document.title = t; },
    BrowserOpenURL: (u) => window.open(u, '_blank', 'noopener'),
    ClipboardGetText: () => navigator.clipboard.readText(),
    ClipboardSetText: (t) => navigator.clipboard.writeText(t).then(() => true, () => false),
    Environment: async () => ({buildType: 'e2e', platform: 'browser', arch: ''}),
    Quit: () => {}, Hide: () => {}, Show: () => {},
  };
})();
`
