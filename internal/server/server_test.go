package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

func MustGet(t *testing.T, url string, hdr map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func startGroup(t *testing.T, ls ...*Listener) *Group {
	t.Helper()
	g := &Group{Log: slog.New(slog.DiscardHandler), Metrics: NewMetrics(), Listeners: ls}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = g.Shutdown(ctx)
	})
	return g
}

func TestEveryListenerAnswersOK(t *testing.T) {
	a := &Listener{Name: "data", Addr: "127.0.0.1:0"}
	b := &Listener{Name: "catalog", Addr: "127.0.0.1:0", Handler: http.NotFoundHandler()}
	startGroup(t, a, b)
	for _, l := range []*Listener{a, b} {
		code, body := MustGet(t, l.URL()+"/ok", nil)
		if code != 200 || body != `{"data":"ok"}` {
			t.Errorf("%s /ok = %d %s", l.Name, code, body)
		}
	}
}

func TestAdminRequiresBearerToken(t *testing.T) {
	m := NewMetrics()
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	mux.Handle("/", RequireToken("s3cret", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "in")
	})))
	admin := &Listener{Name: "admin", Addr: "127.0.0.1:0", Handler: mux}
	g := &Group{Log: slog.New(slog.DiscardHandler), Metrics: m, Listeners: []*Listener{admin}}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	defer g.Shutdown(context.Background())

	for _, tc := range []struct {
		hdr  map[string]string
		code int
	}{
		{nil, 401},
		{map[string]string{"Authorization": "Bearer wrong"}, 401},
		{map[string]string{"Authorization": "s3cret"}, 401},
		{map[string]string{"Authorization": "Bearer s3cret"}, 200},
	} {
		code, body := MustGet(t, admin.URL()+"/admin/anything", tc.hdr)
		if code != tc.code {
			t.Errorf("%v: got %d want %d", tc.hdr, code, tc.code)
		}
		if code == 401 && !strings.Contains(body, `"error"`) {
			t.Errorf("401 body is not a JSON error: %s", body)
		}
	}
	if code, _ := MustGet(t, admin.URL()+"/ok", nil); code != 200 {
		t.Errorf("/ok needs no token, got %d", code)
	}
	code, body := MustGet(t, admin.URL()+"/metrics", nil)
	if code != 200 || !strings.Contains(body, `pmx_http_requests_total{listener="admin",route="GET /ok",status="200"} 1`) {
		t.Errorf("metrics: %d\n%s", code, body)
	}
	if !strings.Contains(body, `pmx_http_request_duration_seconds_bucket{listener="admin"`) {
		t.Error("no latency histogram")
	}
}

// A listener whose handler serves every path counts its requests under the
// route "/" by status, the common 200 and the rest alike.
func TestMetricsCountAServesOKListenersRequestsUnderRoot(t *testing.T) {
	m := NewMetrics()
	svc := &Listener{Name: "svc", Addr: "127.0.0.1:0", ServesOK: true, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			w.WriteHeader(http.StatusNotFound)
		}
	})}
	g := &Group{Log: slog.New(slog.DiscardHandler), Metrics: m, Listeners: []*Listener{svc}}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	defer g.Shutdown(context.Background())
	for range 3 {
		MustGet(t, svc.URL()+"/a", nil)
	}
	MustGet(t, svc.URL()+"/missing", nil)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, want := range []string{`pmx_http_requests_total{listener="svc",route="/",status="200"} 3`,
		`pmx_http_requests_total{listener="svc",route="/",status="404"} 1`,
		`pmx_http_request_duration_seconds_count{listener="svc",route="/",status="200"} 3`} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("no %s in\n%s", want, rec.Body.String())
		}
	}
}

func TestDataDirIsLocked(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenDataDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDataDir(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("second open: %v, want ErrLocked", err)
	}
	d.Close()
	d2, err := OpenDataDir(dir)
	if err != nil {
		t.Fatalf("reopen after close: %v", err)
	}
	d2.Close()
}

func TestSecretCreatedOnceWithMode0600(t *testing.T) {
	d, err := OpenDataDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s1, err := d.Secret("admin.token")
	if err != nil {
		t.Fatal(err)
	}
	if len(s1) != 64 {
		t.Fatalf("token %q is not 32 bytes of hex", s1)
	}
	st, _ := os.Stat(d.File("admin.token"))
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	s2, _ := d.Secret("admin.token")
	if s1 != s2 {
		t.Fatal("secret changed on second read")
	}
}

func TestStartFailsOnBusyAddress(t *testing.T) {
	a := &Listener{Name: "a", Addr: "127.0.0.1:0"}
	startGroup(t, a)
	b := &Listener{Name: "b", Addr: strings.TrimPrefix(a.URL(), "http://")}
	g := &Group{Log: slog.New(slog.DiscardHandler), Listeners: []*Listener{b}}
	if err := g.Start(); err == nil {
		t.Fatal("expected bind error")
	}
}
