package worker

import (
	"fmt"

	ort "github.com/yalue/onnxruntime_go"

	"qa-shard/internal/isa"
)

// sessionMode varies how one session is opened.
type sessionMode struct {
	// strict sets session.disable_cpu_ep_fallback: creation fails if any
	// node would run on ONNX Runtime's CPU provider.
	strict bool
	// profileDir, when set, makes ONNX Runtime write a JSON trace of every
	// kernel run there (written when the session is destroyed).
	profileDir string
	// quiet raises the session's log level to Fatal, for sessions whose
	// expected failure or findings this package reports itself.
	quiet bool
}

// cpuSet is this CPU's instruction set, read once.
var cpuSet = isa.Detect()

// newSession opens the replica's session: on a GPU provider through the
// placement check (placement.go), on the CPU directly.
func newSession(m *Model, opt ReplicaOptions) (*ort.DynamicAdvancedSession, error) {
	if opt.Provider == ProviderCUDA || opt.Provider == ProviderTensorRT {
		return gpuSession(m, opt)
	}
	return openSession(m, opt, sessionMode{})
}

func openSession(m *Model, opt ReplicaOptions, mode sessionMode) (*ort.DynamicAdvancedSession, error) {
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("replica %s: session options: %w", opt.Name, err)
	}
	defer so.Destroy()
	if err := appendProvider(so, m, opt.Provider, opt.GPU, m.inputNames()); err != nil {
		return nil, fmt.Errorf("replica %s: %w", opt.Name, err)
	}
	if err := setMode(so, opt.Provider, mode); err != nil {
		return nil, fmt.Errorf("replica %s: %w", opt.Name, err)
	}
	if m.PreciseInt8(cpuSet) { // the int8 nodes run on the CPU provider whatever the replica's
		if err := so.AddSessionConfigEntry("session.x64quantprecision", "1"); err != nil {
			return nil, fmt.Errorf("replica %s: exact int8 mode: %w", opt.Name, err)
		}
	}
	if opt.Threads > 0 {
		if err := so.SetIntraOpNumThreads(opt.Threads); err != nil {
			return nil, fmt.Errorf("replica %s: intra-op threads: %w", opt.Name, err)
		}
		// One replica per thread budget: inter-op parallelism would
		// oversubscribe the cores the other replicas use.
		if err := so.SetInterOpNumThreads(1); err != nil {
			return nil, fmt.Errorf("replica %s: inter-op threads: %w", opt.Name, err)
		}
	}
	s, err := ort.NewDynamicAdvancedSession(m.ONNXPath, m.inputNames(), m.outputNames(), so)
	if err != nil {
		return nil, fmt.Errorf("replica %s: loading %s: %w", opt.Name, m.ONNXPath, err)
	}
	return s, nil
}

// setMode applies mode. GPU sessions log ONNX Runtime's warnings (the
// environment's level is Error): the Go binding offers no logging callback
// to route them into zap, so they reach standard error in ONNX Runtime's
// own format. With JSON logs (QuietNativeLog) they stay quiet, since every
// stderr line must then be a JSON object; the placement check reports CPU
// nodes through zap either way.
func setMode(so *ort.SessionOptions, provider string, mode sessionMode) error {
	level := ort.LoggingLevel(-1)
	switch {
	case mode.quiet:
		level = ort.LoggingLevelFatal
	case nativeQuiet.Load():
		level = ort.LoggingLevelFatal
	case provider == ProviderCUDA || provider == ProviderTensorRT:
		level = ort.LoggingLevelWarning
	}
	if level >= 0 {
		if err := so.SetLogSeverityLevel(level); err != nil {
			return fmt.Errorf("session log level: %w", err)
		}
	}
	if mode.strict {
		if err := so.AddSessionConfigEntry("session.disable_cpu_ep_fallback", "1"); err != nil {
			return fmt.Errorf("disabling the CPU fallback: %w", err)
		}
	}
	if mode.profileDir != "" {
		if err := so.EnableProfiling(mode.profileDir + "/placement"); err != nil {
			return fmt.Errorf("profiling: %w", err)
		}
	}
	return nil
}
