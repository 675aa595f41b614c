// Package shim serves the frontend to a plain browser for end-to-end tests
// (architecture.md "Testing"): it serves frontend/dist over HTTP on loopback
// and exposes every bound method as window.go.<pkg>.<Struct>.<Method>, calling
// the real Go method through a small JSON endpoint, so that the frontend runs
// unchanged without a webview. Events from Go reach window.runtime.EventsOn
// through a server-sent event stream.
package shim

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"sync"

	"weald/backend/errcode"
)

// Server is the HTTP handler of the e2e build.
type Server struct {
	assets  fs.FS
	methods map[string]reflect.Value // "app.App.Status" → bound method value

	mu    sync.Mutex
	subs  map[chan []byte]struct{}
	hosts map[string]bool // Host values (and Origins' host:port) it answers; see ServeOn
}

// New binds the exported methods of each service (pointers to structs), except
// the names in exempt, and serves assets (the root of frontend/dist).
func New(assets fs.FS, services []any, exempt ...string) (*Server, error) {
	s := &Server{assets: assets, methods: map[string]reflect.Value{}, subs: map[chan []byte]struct{}{}}
	skip := map[string]bool{}
	for _, e := range exempt {
		skip[e] = true
	}
	for _, svc := range services {
		v := reflect.ValueOf(svc)
		t := v.Type()
		if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
			return nil, fmt.Errorf("shim: service %T is not a pointer to a struct", svc)
		}
		pkg := t.Elem().PkgPath()
		pkg = pkg[strings.LastIndex(pkg, "/")+1:]
		for i := 0; i < t.NumMethod(); i++ {
			m := t.Method(i)
			if skip[m.Name] {
				continue
			}
			s.methods[pkg+"."+t.Elem().Name()+"."+m.Name] = v.Method(i)
		}
	}
	return s, nil
}

// Methods lists the bound method names, sorted.
func (s *Server) Methods() []string {
	out := make([]string, 0, len(s.methods))
	for k := range s.methods {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Emit sends an event to every open page, as runtime.EventsEmit does in the window.
func (s *Server) Emit(name string, data ...any) {
	b, err := json.Marshal(map[string]any{"name": name, "data": data})
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.subs {
		select {
		case ch <- b:
		default: // a page that does not read is not allowed to block Go
		}
	}
}

// ServeOn names the loopback address (host:port) the server is reachable
// at. Only requests whose Host is that address (or localhost with the same
// port) and whose Origin, when sent, is http:// on it are answered; every
// other request is 403. This is the defence against DNS rebinding (a page
// on another name that resolves to 127.0.0.1) and against cross-origin
// calls from any other page. Until ServeOn is called nothing is answered.
func (s *Server) ServeOn(hostport string) error {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return fmt.Errorf("shim: %w", err)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		return fmt.Errorf("shim: %s is not a loopback address", hostport)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hosts = map[string]bool{net.JoinHostPort(host, port): true, net.JoinHostPort("localhost", port): true}
	return nil
}

// allowed reports whether r names this server as its Host and, if it sends
// an Origin, comes from a page this server served.
func (s *Server) allowed(r *http.Request) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.hosts[strings.ToLower(r.Host)] {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && u.Scheme == "http" && u.Path == "" && s.hosts[strings.ToLower(u.Host)]
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.allowed(r) {
		http.Error(w, "forbidden: this server answers only its own loopback origin", http.StatusForbidden)
		return
	}
	switch r.URL.Path {
	case "/__weald/call":
		s.serveCall(w, r)
	case "/__weald/shim.js":
		w.Header().Set("Content-Type", "text/javascript")
		io.WriteString(w, s.script())
	case "/__weald/events":
		s.serveEvents(w, r)
	case "/", "/index.html":
		s.serveIndex(w)
	default:
		http.FileServerFS(s.assets).ServeHTTP(w, r)
	}
}

func (s *Server) serveIndex(w http.ResponseWriter) {
	b, err := fs.ReadFile(s.assets, "index.html")
	if err != nil {
		http.Error(w, "frontend/dist/index.html is missing: build the frontend first (npm run build in frontend/)", http.StatusInternalServerError)
		return
	}
	page := strings.Replace(string(b), "<head>", `<head><script src="/__weald/shim.js"></script>`, 1)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	io.WriteString(w, page)
}

type callRequest struct {
	Method string            `json:"method"`
	Args   []json.RawMessage `json:"args"`
}

type callResponse struct {
	Result any        `json:"result,omitempty"`
	Error  *callError `json:"error,omitempty"`
}

// callError is a refused call as Wails' ErrorFormatter gives it in main.go:
// the code and the sentence as fields, not a string to parse.
type callError struct {
	Code    errcode.Code `json:"code"`
	Message string       `json:"message"`
}

func errorOf(err error) *callError {
	code, ok := errcode.Of(err)
	if !ok {
		code = "app/failed"
	}
	return &callError{Code: code, Message: errcode.SentenceOf(err)}
}

var errorType = reflect.TypeFor[error]()

func (s *Server) serveCall(w http.ResponseWriter, r *http.Request) {
	reply := func(status int, resp callResponse) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(resp)
	}
	if r.Method != http.MethodPost {
		reply(http.StatusMethodNotAllowed, callResponse{Error: &callError{"shim/method", "Calls are POST requests."}})
		return
	}
	var req callRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&req); err != nil {
		reply(http.StatusBadRequest, callResponse{Error: &callError{"shim/bad_request", "The call is not valid JSON."}})
		return
	}
	m, ok := s.methods[req.Method]
	if !ok {
		reply(http.StatusNotFound, callResponse{Error: &callError{"shim/unknown_method", fmt.Sprintf("%s is not a bound method.", req.Method)}})
		return
	}
	result, err := call(m, req.Args)
	if err != nil {
		reply(http.StatusOK, callResponse{Error: errorOf(err)})
		return
	}
	reply(http.StatusOK, callResponse{Result: result})
}

// call decodes args into the method's parameter types and calls it, returning
// its value and error the way Wails does: (T, error), (T), (error) or ().
func call(m reflect.Value, args []json.RawMessage) (result any, err error) {
	t := m.Type()
	if len(args) != t.NumIn() {
		return nil, errcode.Errorf("shim/bad_request", "%d arguments given, %d expected.", len(args), t.NumIn())
	}
	in := make([]reflect.Value, t.NumIn())
	for i := range in {
		p := reflect.New(t.In(i))
		if err := json.Unmarshal(args[i], p.Interface()); err != nil {
			return nil, errcode.Errorf("shim/bad_request", "argument %d does not fit %s.", i+1, t.In(i))
		}
		in[i] = p.Elem()
	}
	out := m.Call(in)
	for _, o := range out {
		if o.Type() == errorType {
			if !o.IsNil() {
				err = o.Interface().(error)
			}
		} else {
			result = o.Interface()
		}
	}
	if err != nil {
		return nil, err
	}
	return result, nil
}

func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	ch := make(chan []byte, 64)
	s.mu.Lock()
	s.subs[ch] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.subs, ch)
		s.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	io.WriteString(w, ": connected\n\n")
	fl.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case b := <-ch:
			fmt.Fprintf(w, "data: %s\n\n", b)
			fl.Flush()
		}
	}
}
