package server

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds the Prometheus collectors of one process.
type Metrics struct {
	Registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	faults   *prometheus.CounterVec
}

// NewMetrics creates a registry with process/Go collectors and the HTTP
// request counters and latency histograms (by listener, route and status).
func NewMetrics() *Metrics {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{
		Registry: r,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pmx_http_requests_total", Help: "HTTP requests by listener, route pattern and status.",
		}, []string{"listener", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "pmx_http_request_duration_seconds",
			Help:    "HTTP request latency by listener, route pattern and status.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"listener", "route", "status"}),
	}
	m.faults = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "pmx_http_client_faults_total",
		Help: "Requests refused for a client fault (unclean path, body too large, too slow, unreadable, too many bodies per IP), by listener and reason.",
	}, []string{"listener", "reason"})
	r.MustRegister(m.requests, m.latency, m.faults)
	return m
}

// CounterFunc registers a counter read from f at scrape time.
func (m *Metrics) CounterFunc(name, help string, labels map[string]string, f func() float64) {
	m.Registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels}, f))
}

// GaugeFunc registers a gauge read from f at scrape time.
func (m *Metrics) GaugeFunc(name, help string, labels map[string]string, f func() float64) {
	m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: labels}, f))
}

// ClientFault counts one client fault: a metric, not a log line, so no
// client can write ERROR lines into the operator's log.
func (m *Metrics) ClientFault(listener, reason string) {
	m.faults.WithLabelValues(listener, reason).Inc()
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{})
}

// Instrument wraps h, labelling each request with the ServeMux pattern that
// matched (never the raw path, which would explode cardinality).
func (m *Metrics) Instrument(listener string, h http.Handler) http.Handler {
	// The common answer of a listener whose handler serves every path (route
	// "/", status 200) keeps its two series, resolved on first use: a cached
	// data page costs a few microseconds of pmx's own work, and two label
	// lookups were a visible part of it.
	var rootOK atomic.Pointer[instrumented]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		var s *instrumented
		if route == "/" && sw.status == http.StatusOK {
			if s = rootOK.Load(); s == nil {
				s = m.series(listener, route, http.StatusOK)
				rootOK.Store(s)
			}
		} else {
			s = m.series(listener, route, sw.status)
		}
		s.requests.Inc()
		s.latency.Observe(time.Since(start).Seconds())
	})
}

// instrumented is one (listener, route, status)'s request counter and
// latency histogram.
type instrumented struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

func (m *Metrics) series(listener, route string, status int) *instrumented {
	st := strconv.Itoa(status)
	return &instrumented{m.requests.WithLabelValues(listener, route, st), m.latency.WithLabelValues(listener, route, st)}
}

type statusWriter struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.status = code
		w.wroteHeader = true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wroteHeader = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer (flush,
// hijack for WebSockets).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
