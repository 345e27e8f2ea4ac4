package loadgen

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

func TestCountsEveryMeasuredRequestAndErrors(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 0 {
			w.WriteHeader(500)
		}
	}))
	defer srv.Close()
	res, err := Run(context.Background(), Config{URLs: []string{srv.URL + "/a"}, Clients: 4, Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.Errors == 0 || res.Errors > res.Requests {
		t.Fatalf("%+v", res)
	}
	if !(res.P50 <= res.P90 && res.P90 <= res.P99 && res.P99 <= res.Max) {
		t.Fatalf("percentiles out of order: %+v", res)
	}
	if int64(res.Requests) > n.Load() {
		t.Fatalf("counted %d requests, server saw %d", res.Requests, n.Load())
	}
}

func TestRejectsAnEmptyConfig(t *testing.T) {
	if _, err := Run(context.Background(), Config{}); err == nil {
		t.Fatal("want error")
	}
}

func TestSendsTheConfiguredHeaders(t *testing.T) {
	var seen atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") == "gzip" && r.Header.Get("X-Two") == "2" {
			seen.Add(1)
		}
	}))
	defer srv.Close()
	res, err := Run(context.Background(), Config{URLs: []string{srv.URL + "/a"}, Clients: 2, Duration: 50 * time.Millisecond,
		Headers: []string{"Accept-Encoding: gzip", "X-Two: 2"}})
	if err != nil || res.Errors != 0 || seen.Load() < int64(res.Requests) || res.Requests == 0 {
		t.Fatalf("%+v, %v; the server saw the headers on %d requests", res, err, seen.Load())
	}
	if _, err := Run(context.Background(), Config{URLs: []string{srv.URL}, Clients: 1, Duration: time.Millisecond,
		Headers: []string{"X: 1\r\nY: 2"}}); err == nil {
		t.Fatal("a header with a line break must be refused")
	}
}
