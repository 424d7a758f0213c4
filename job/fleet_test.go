package job

import (
	"testing"

	"qa-shard/worker"
)

// TestQuantizedModelRunsOneWindow: the replicas and batches of a run
// follow from its options and its model by one rule, which qa-shard bench
// shares: a model that quantizes activations at run time runs in int8,
// one unpadded window a batch, whatever the options say; a float model
// keeps the options' precision and batches by its budget (rows bounded
// only where TensorRT's profile needs it).
func TestQuantizedModelRunsOneWindow(t *testing.T) {
	r := Replicas{Devices: DeviceOptions{Devices: "cpu", Precision: "fp32"}, Pipeline: PipelineOptions{MaxBatchTokens: 4096, TuneShare: 2}, MaxSeqLen: 384}
	for _, tc := range []struct {
		quantized bool
		precision string
	}{{false, "fp32"}, {true, "int8"}} {
		g := &worker.Model{QuantizedActivations: tc.quantized}
		fo := fleetOptions(r, g)
		if fo.Precision != tc.precision || fo.SingleWindow != tc.quantized {
			t.Errorf("quantized %v: precision %q, single window %v; want %q, %v", tc.quantized, fo.Precision, fo.SingleWindow, tc.precision, tc.quantized)
		}
		if fo.MaxBatchTokens != 4096 || fo.MaxSeqLen != 384 || fo.TuneShare != 0.02 || fo.Devices != "cpu" {
			t.Errorf("quantized %v: options not carried over: %+v", tc.quantized, fo)
		}
		b := batching(worker.ProviderCPU, 4096, g)
		if b.SingleWindowBatches != tc.quantized || b.MaxBatchTokens != 4096 || b.MaxBatchRows != 0 {
			t.Errorf("quantized %v: CPU batching %+v, want the budget alone (no row bound)", tc.quantized, b)
		}
		if b := batching(worker.ProviderTensorRT, 4096, g); b.MaxBatchRows != 64 {
			t.Errorf("quantized %v: TensorRT batching %+v, want at most 64 rows (its profile's bound)", tc.quantized, b)
		}
	}
}
