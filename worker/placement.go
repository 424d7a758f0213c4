package worker

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	ort "github.com/yalue/onnxruntime_go"
	"go.uber.org/zap"

	"qa-shard/qa"
)

// The placement check: no node of a model runs on the CPU unnoticed. Nodes
// a GPU provider cannot run are placed on ONNX Runtime's CPU provider one
// by one, with only a warning in its log: the run is then slow and nobody
// is told. ONNX Runtime also keeps
// shape computations (int64 sizes feeding Reshape, Range, Slice) on the CPU
// on purpose, and session.disable_cpu_ep_fallback refuses both alike,
// without naming a node. So the first GPU session of a model:
//
//  1. is created with the CPU fallback disabled; success means every node
//     runs on the GPU, and the model's later sessions keep it disabled;
//  2. if that is refused, a probe session with profiling runs one small
//     batch, and the profile names every node and where it ran. CPU nodes
//     that produce floating-point tensors are model arithmetic the GPU
//     provider cannot run: an ErrConfig naming them. CPU nodes producing
//     only integer tensors are shape computations: accepted and logged.

// cpuFallbackRefused is in ONNX Runtime's error when a session with the CPU
// fallback disabled has nodes on the CPU.
const cpuFallbackRefused = "assigned to the default CPU EP"

// placement is what the check found for one model on one provider.
type placement struct {
	strict bool      // every node runs on the GPU: keep the fallback disabled
	err    error     // model arithmetic would run on the CPU
	shape  []nodeRun // shape computations ONNX Runtime keeps on the CPU
}

// gpuSession opens a session on a GPU provider with no silent CPU fallback
// of model arithmetic.
func gpuSession(m *Model, opt ReplicaOptions) (*ort.DynamicAdvancedSession, error) {
	m.placeMu.Lock()
	p := m.placed[opt.Provider]
	m.placeMu.Unlock()
	if p == nil {
		s, err := openSession(m, opt, sessionMode{strict: true, quiet: true})
		if err == nil {
			m.remember(opt, &placement{strict: true})
			return s, nil
		}
		if !strings.Contains(err.Error(), cpuFallbackRefused) {
			return nil, err
		}
		p = probePlacement(m, opt)
		m.remember(opt, p)
	}
	if p.err != nil {
		return nil, p.err
	}
	return openSession(m, opt, sessionMode{strict: p.strict})
}

// remember keeps p for the model's later sessions on the provider and logs
// it once.
func (m *Model) remember(opt ReplicaOptions, p *placement) {
	m.placeMu.Lock()
	if m.placed == nil {
		m.placed = map[string]*placement{}
	}
	m.placed[opt.Provider] = p
	m.placeMu.Unlock()
	log := opt.Log
	if log == nil {
		log = zap.NewNop()
	}
	switch {
	case p.err != nil:
		log.Error("model arithmetic would run on the CPU", zap.String("provider", opt.Provider), zap.Error(p.err))
	case p.strict:
		log.Info("every node of the model runs on the GPU provider", zap.String("provider", opt.Provider))
	default:
		log.Info("ONNX Runtime keeps shape computations on the CPU, by design; all model arithmetic runs on the GPU provider",
			zap.String("provider", opt.Provider), zap.Int("cpu_nodes", len(p.shape)), zap.String("nodes", listNodes(p.shape, 12)))
	}
}

// probePlacement runs one small batch through a profiling session and
// reads where every node ran.
func probePlacement(m *Model, opt ReplicaOptions) *placement {
	nodes, err := profileNodes(m, opt)
	if err != nil {
		return &placement{err: fmt.Errorf("replica %s: checking where the model's nodes run: %w", opt.Name, err)}
	}
	compute, shape := onCPU(nodes)
	p := &placement{shape: shape}
	if len(compute) > 0 {
		p.err = fmt.Errorf("%w: the %s provider cannot run %d node(s) of %s, which ONNX Runtime would run on the CPU, slowly and copying activations between host and GPU every batch: %s. Run this model with --devices cpu, or export one whose operators the GPU provider supports (optimum's ONNX export of a Hugging Face checkpoint, opset 14 or newer)",
			ErrConfig, opt.Provider, len(compute), m.ONNXPath, listNodes(compute, 12))
	}
	return p
}

// profileNodes opens a profiling session on opt's provider, runs a 1x8
// batch, and returns the nodes of the profile ONNX Runtime writes when the
// session is destroyed.
func profileNodes(m *Model, opt ReplicaOptions) ([]nodeRun, error) {
	dir, err := os.MkdirTemp("", "qa-shard-placement-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	s, err := openSession(m, opt, sessionMode{profileDir: dir, quiet: true})
	if err != nil {
		return nil, err
	}
	ro, err := ort.NewRunOptions()
	if err != nil {
		s.Destroy()
		return nil, err
	}
	probe := &Replica{name: opt.Name, model: m, session: s, runOpts: ro}
	_, runErr := probe.run(probeBatch(m))
	ro.Destroy()
	if err := s.Destroy(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return nil, fmt.Errorf("probe batch: %w", runErr)
	}
	files, err := filepath.Glob(filepath.Join(dir, "placement*.json"))
	if err != nil || len(files) != 1 {
		return nil, fmt.Errorf("ONNX Runtime wrote %d profile(s) into %s, want 1", len(files), dir)
	}
	return readProfile(files[0])
}

// probeBatch is one window of eight tokens: [CLS] six [UNK] [SEP] in the
// BERT vocabulary; the values only have to be valid ids.
func probeBatch(m *Model) qa.Batch {
	const n = 8
	b := qa.Batch{Rows: 1, Len: n, InputIDs: make([]int64, n), AttentionMask: make([]int64, n)}
	for i := range n {
		b.InputIDs[i], b.AttentionMask[i] = 100, 1
	}
	b.InputIDs[0], b.InputIDs[n-1] = 101, 102
	if m.TokenTypeIDs != "" {
		b.TypeIDs = make([]int64, n)
	}
	return b
}
