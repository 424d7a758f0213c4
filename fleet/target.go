package fleet

import (
	"os"

	"qa-shard/gpu"
	"qa-shard/worker"
)

// Target is the execution provider the replicas of a --devices spec and
// --provider would use: worker.ProviderCPU, ProviderCUDA or
// ProviderTensorRT ("sim" for simulated devices). It looks at the devices
// as Start does, without logging or changing anything, so that a run can
// choose its model's graph and refuse a precision before the model is
// opened. A selection Start would refuse is reported as the CPU: Start
// then says why.
func Target(devices, provider string) string {
	if gpu.Simulated(devices) {
		return "sim"
	}
	n, nerr := openNVML()
	var found []gpu.Device
	if nerr == nil {
		defer n.Close()
		found, nerr = n.Devices()
	}
	sel, err := gpu.Select(devices, found, nerr, os.LookupEnv)
	if err != nil || !sel.OnGPU() {
		return worker.ProviderCPU
	}
	if provider == "" {
		return worker.ProviderCUDA
	}
	return provider
}
