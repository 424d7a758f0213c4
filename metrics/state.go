package metrics

import (
	"math"
	"os"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"qa-shard/scheduler"
)

// Info is what a run is, for the qa_shard_info series: its labels, each
// of value 1 (rank and host come with every series).
type Info struct {
	Version     string // qa-shard's build
	Model       string // the --model folder
	ONNXRuntime string // the ONNX Runtime version loaded
	Devices     string // the device classes the run uses, e.g. "cpu AMD EPYC (2 cores), AVX-512 VNNI"
}

// stateMetrics say what the run is (info), where it stands (state) and
// when its work was last made durable (the journal's time).
type stateMetrics struct {
	info       *prometheus.GaugeVec
	state      *prometheus.GaugeVec
	checkpoint prometheus.GaugeFunc

	mu      sync.Mutex
	journal string // "" none (standard output, or not told yet)
}

func newStateMetrics() *stateMetrics {
	m := &stateMetrics{
		info: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: "info",
			Help: "What the run is: its labels (version, model, onnxruntime, devices); the value is 1."},
			[]string{"version", "model", "onnxruntime", "devices"}),
		state: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: "run_state",
			Help: `Where the run stands: 1 for its state, 0 for the others ("running"; "stopping": a stop or drain began, and how a run that ended before its input did last reports; "done": its whole input answered).`},
			[]string{"state"}),
	}
	m.checkpoint = prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: "last_checkpoint_timestamp_seconds",
		Help: "When the answers were last made durable and journaled (Unix seconds: the journal's modification time; a resumed run's previous checkpoint until its first); NaN without a journal."},
		m.lastCheckpoint)
	m.setState(scheduler.Running)
	return m
}

func (m *stateMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.info, m.state, m.checkpoint}
}

// setState makes s the state with value 1, every other 0.
func (m *stateMetrics) setState(s scheduler.State) {
	for _, x := range scheduler.States() {
		v := 0.0
		if x == s {
			v = 1
		}
		m.state.WithLabelValues(string(x)).Set(v)
	}
}

// lastCheckpoint is the journal's modification time: it is replaced
// atomically at every checkpoint, the run's last included.
func (m *stateMetrics) lastCheckpoint() float64 {
	m.mu.Lock()
	path := m.journal
	m.mu.Unlock()
	if path == "" {
		return math.NaN()
	}
	st, err := os.Stat(path)
	if err != nil {
		return math.NaN()
	}
	return float64(st.ModTime().UnixNano()) / 1e9
}

// SetInfo exports what the run is as qa_shard_info.
func (r *Registry) SetInfo(i Info) {
	r.s.info.Reset()
	r.s.info.WithLabelValues(i.Version, i.Model, i.ONNXRuntime, i.Devices).Set(1)
}

// SetJournal names the journal whose time is the last checkpoint's ("":
// none, as for a run to standard output).
func (r *Registry) SetJournal(path string) {
	r.s.mu.Lock()
	r.s.journal = path
	r.s.mu.Unlock()
}

// SetReplicas creates every per-replica series at 0 (batches, their
// durations, failures of each kind), so that increase() and rate() see a
// replica's first batch or failure, and dashboards show 0 rather than no
// data.
func (r *Registry) SetReplicas(names []string) {
	for _, n := range names {
		r.m.batches.WithLabelValues(n)
		r.m.batchDuration.WithLabelValues(n)
		for _, k := range scheduler.FailureKinds() {
			r.m.failures.WithLabelValues(n, k)
		}
	}
}
