package shim

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

type svc struct{ calls int }

func (s *svc) Add(a, b int) (int, error) { s.calls++; return a + b, nil }
func (s *svc) Fail() error               { return errors.New("demo/failed: It failed on purpose.") }
func (s *svc) Hidden()                   {}

func post(t *testing.T, h http.Handler, body string) (int, callResponse) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/__weald/call", strings.NewReader(body)))
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
	if got := strings.Join(srv.Methods(), ","); got != "shim.svc.Add,shim.svc.Fail" {
		t.Fatalf("methods = %s", got)
	}
	code, resp := post(t, srv, `{"method":"shim.svc.Add","args":[2,3]}`)
	if code != 200 || resp.Result != float64(5) || s.calls != 1 {
		t.Fatalf("Add: %d %+v calls=%d", code, resp, s.calls)
	}
	_, resp = post(t, srv, `{"method":"shim.svc.Fail","args":[]}`)
	if resp.Error != "demo/failed: It failed on purpose." {
		t.Fatalf("Fail: %+v", resp)
	}
	for _, bad := range []string{`{"method":"shim.svc.Add","args":[1]}`, `{"method":"shim.svc.Add","args":["x",1]}`, `nope`, `{"method":"shim.svc.Hidden","args":[]}`} {
		code, resp := post(t, srv, bad)
		if resp.Error == "" || !strings.HasPrefix(resp.Error, "shim/") {
			t.Errorf("%s: got %d %+v, want a shim/ error", bad, code, resp)
		}
	}
	if s.calls != 1 {
		t.Fatalf("a refused call reached the method")
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if !strings.Contains(rec.Body.String(), `<script src="/__weald/shim.js"></script>`) {
		t.Fatalf("index.html is served without the shim: %q", rec.Body.String())
	}
}
