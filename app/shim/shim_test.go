package shim

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"weald/backend/errcode"
)

type svc struct{ calls int }

func (s *svc) Add(a, b int) (int, error) { s.calls++; return a + b, nil }
func (s *svc) Fail() error               { return errcode.New("demo/failed", "It failed on purpose.") }
func (s *svc) Hidden()                   {}

func post(t *testing.T, h http.Handler, body string) (int, callResponse) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, local(httptest.NewRequest(http.MethodPost, "/__weald/call", strings.NewReader(body))))
	var resp callResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		t.Fatalf("reply is not JSON: %q", rec.Body.String())
	}
	return rec.Code, resp
}

func TestCallsRealMethodsAndReportsErrors(t *testing.T) {
	s := &svc{}
	srv, err := New(fstest.MapFS{"index.html": {Data: []byte("<html><head></head></html>")}}, []any{s}, "Hidden")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.ServeOn(servedOn); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(srv.Methods(), ","); got != "shim.svc.Add,shim.svc.Fail" {
		t.Fatalf("methods = %s", got)
	}
	code, resp := post(t, srv, `{"method":"shim.svc.Add","args":[2,3]}`)
	if code != 200 || resp.Result != float64(5) || s.calls != 1 {
		t.Fatalf("Add: %d %+v calls=%d", code, resp, s.calls)
	}
	_, resp = post(t, srv, `{"method":"shim.svc.Fail","args":[]}`)
	if resp.Error == nil || *resp.Error != (callError{"demo/failed", "It failed on purpose."}) {
		t.Fatalf("Fail: %+v", resp)
	}
	for _, bad := range []string{`{"method":"shim.svc.Add","args":[1]}`, `{"method":"shim.svc.Add","args":["x",1]}`, `nope`, `{"method":"shim.svc.Hidden","args":[]}`} {
		code, resp := post(t, srv, bad)
		if resp.Error == nil || resp.Error.Code.Area() != "shim" {
			t.Errorf("%s: got %d %+v, want a shim/ error", bad, code, resp)
		}
	}
	if s.calls != 1 {
		t.Fatalf("a refused call reached the method")
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, local(httptest.NewRequest(http.MethodGet, "/", nil)))
	if !strings.Contains(rec.Body.String(), `<script src="/__weald/shim.js"></script>`) {
		t.Fatalf("index.html is served without the shim: %q", rec.Body.String())
	}
}

const servedOn = "127.0.0.1:7001"

// local makes r a request the page served on servedOn would send.
func local(r *http.Request) *http.Request {
	r.Host = servedOn
	r.Header.Set("Origin", "http://"+servedOn)
	return r
}

// A page on another site calls the shim: through DNS rebinding (its own
// name resolving to 127.0.0.1, so Host names it) or cross-origin (Host
// right, Origin its own). Both are refused before any method runs, as is
// every request before ServeOn. On main at 0478711 the shim answered any
// Host and Origin.
func TestShimRefusesOtherHostsAndOrigins(t *testing.T) {
	s := &svc{}
	srv, err := New(fstest.MapFS{"index.html": {Data: []byte("<html></html>")}}, []any{s})
	if err != nil {
		t.Fatal(err)
	}
	call := func(host, origin string) int {
		r := httptest.NewRequest(http.MethodPost, "/__weald/call", strings.NewReader(`{"method":"shim.svc.Add","args":[1,1]}`))
		r.Host = host
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, r)
		return rec.Code
	}
	if code := call(servedOn, ""); code != http.StatusForbidden {
		t.Fatalf("before ServeOn: %d", code)
	}
	if err := srv.ServeOn("0.0.0.0:7001"); err == nil {
		t.Fatal("ServeOn accepted a non-loopback address")
	}
	if err := srv.ServeOn(servedOn); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ host, origin string }{
		{"evil.example:7001", ""},
		{"evil.example:7001", "http://evil.example:7001"},
		{servedOn, "http://evil.example"},
		{servedOn, "https://127.0.0.1:7001"},
		{servedOn, "http://127.0.0.1:7002"},
		{"127.0.0.1:7002", ""},
	} {
		if code := call(c.host, c.origin); code != http.StatusForbidden {
			t.Errorf("Host %q Origin %q: %d, want 403", c.host, c.origin, code)
		}
	}
	if s.calls != 0 {
		t.Fatalf("a refused request ran the method %d times", s.calls)
	}
	for _, c := range []struct{ host, origin string }{{servedOn, ""}, {servedOn, "http://" + servedOn}, {"localhost:7001", "http://localhost:7001"}} {
		if code := call(c.host, c.origin); code != http.StatusOK {
			t.Errorf("Host %q Origin %q: %d, want 200", c.host, c.origin, code)
		}
	}
}
