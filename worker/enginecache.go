package worker

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"qa-shard/internal/fingerprint"
)

// engineCacheDir is the folder for the TensorRT engines of one model on one
// GPU model: base/<gpu model>/<model fingerprint>. Engines are specific to
// the GPU model. ONNX Runtime names a cached engine after the model file's
// name and graph, not its weights, and every optimum export is called
// model.onnx: without the fingerprint of the model's bytes, a second
// fine-tune of the same architecture would silently reuse the first one's
// engine (and give its answers).
func engineCacheDir(base, gpuModel, modelFingerprint string) string {
	fp := strings.TrimPrefix(modelFingerprint, "sha256=")
	if len(fp) > 16 {
		fp = fp[:16]
	}
	return filepath.Join(base, safeName(gpuModel), "model-"+safeName(fp))
}

// safeName keeps letters, digits, '.', '_' and '-'; anything else (spaces,
// slashes in "NVIDIA H100 80GB HBM3") becomes '-'.
func safeName(s string) string {
	if s == "" {
		return "unknown"
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '-'
	}, s)
}

// engineCache is the engine folder of m on the GPU g names; "" when g has
// no cache folder.
func (m *Model) engineCache(g GPUOptions) (string, error) {
	if g.TRTCacheDir == "" {
		return "", nil
	}
	fp, err := m.Fingerprint()
	if err != nil {
		return "", err
	}
	return engineCacheDir(g.TRTCacheDir, g.GPUModel, fp), nil
}

// Fingerprint hashes the model's files (fingerprint.Model) once per
// Model (a bert-large export takes a few seconds): the key of the engine
// and tuning caches.
func (m *Model) Fingerprint() (string, error) {
	m.fpOnce.Do(func() {
		m.fp, m.fpErr = fingerprint.Model(m.Dir, m.ONNXPath)
		if m.fpErr != nil {
			m.fpErr = fmt.Errorf("fingerprinting %s: %w", m.Dir, m.fpErr)
		}
	})
	return m.fp, m.fpErr
}

// modelOnce holds what a Model computes once and shares between replicas.
type modelOnce struct {
	fpOnce sync.Once
	fp     string
	fpErr  error

	placeMu sync.Mutex
	placed  map[string]*placement // by provider, see placement.go
}
