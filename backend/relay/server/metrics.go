package server

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the relay's Prometheus series (issue 4: accepted, refused by
// code, bytes per workspace, connections, retention warnings). Each Server
// has its own registry, so several servers can run in one process (tests).
type Metrics struct {
	Registry *prometheus.Registry

	Accepted       prometheus.Counter
	Refused        *prometheus.CounterVec // label code
	WorkspaceBytes *prometheus.GaugeVec   // label workspace (hex id)
	Connections    prometheus.Gauge
	ConnsTotal     *prometheus.CounterVec // label principal
	Retention      *prometheus.GaugeVec   // label workspace: envelopes older than the warning threshold
	Delivered      prometheus.Counter
	FanoutSeconds  prometheus.Histogram
	Requests       *prometheus.CounterVec // label frame
}

// NewMetrics creates the series on a new registry (with Go and process
// collectors).
func NewMetrics() *Metrics {
	r := prometheus.NewRegistry()
	m := &Metrics{
		Registry: r,
		Accepted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "weald_relay_envelopes_accepted_total",
			Help: "Envelopes accepted (committed and acknowledged).",
		}),
		Refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "weald_relay_refused_total",
			Help: "Requests and connections refused, by error code.",
		}, []string{"code"}),
		WorkspaceBytes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "weald_relay_workspace_log_bytes",
			Help: "Envelope ct bytes held per workspace (the byte-budget counter).",
		}, []string{"workspace"}),
		Connections: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "weald_relay_connections",
			Help: "Open authenticated WebSocket connections.",
		}),
		ConnsTotal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "weald_relay_connections_total",
			Help: "Authenticated connections, by principal kind.",
		}, []string{"principal"}),
		Retention: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "weald_relay_retention_warning_envelopes",
			Help: "Envelopes older than WEALD_RELAY_RETENTION_DAYS per workspace (a warning; the relay never deletes them).",
		}, []string{"workspace"}),
		Delivered: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "weald_relay_envelopes_delivered_total",
			Help: "Envelopes pushed to subscribers.",
		}),
		FanoutSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "weald_relay_fanout_seconds",
			Help:    "Time from accept to the push being queued for all local subscribers.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16),
		}),
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "weald_relay_requests_total",
			Help: "Requests handled, by frame type.",
		}, []string{"frame"}),
	}
	r.MustRegister(m.Accepted, m.Refused, m.WorkspaceBytes, m.Connections, m.ConnsTotal, m.Retention,
		m.Delivered, m.FanoutSeconds, m.Requests,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{})
}
