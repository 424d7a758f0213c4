package devices

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"go.uber.org/zap"

	"qa-shard/gpu"
	"qa-shard/internal/cli"
	"qa-shard/worker"
)

// options are what qa-shard devices prints besides the inventory.
type options struct {
	JSON bool
	// Sample, when > 0, prints GPU telemetry and health every Every for
	// this long after the inventory (scripts/gpu-check.sh).
	Sample, Every time.Duration
	// SMI, when set, is a file of nvidia-smi's --query-gpu=index,uuid,pci.bus_id
	// --format=csv,noheader output: the list is checked against it
	// instead of printed (scripts/gpu-check.sh).
	SMI string
	// ORTLib is --ort-lib: the library is described as a run would find
	// it (worker.Locate).
	ORTLib string
	// Check makes a problem that would stop a run on the GPUs Select
	// selects (GPUProblem) an error (exit 2), for batch scripts.
	Check bool
	// Select is the run's --devices for Check ("" for all).
	Select string
	Log    *zap.Logger
}

// devices prints the GPUs NVML sees (open loads it), numbered as
// nvidia-smi numbers them, and what CUDA_VISIBLE_DEVICES and the default
// --devices make of them; or checks them against nvidia-smi's list; then
// samples them while ctx lasts, up to o.Sample.
func devices(ctx context.Context, w io.Writer, open func() (NVML, error), o options) error {
	n, err := open()
	var found []gpu.Device
	driver := ""
	if err == nil {
		defer n.Close()
		driver = n.DriverVersion()
		found, err = n.Devices()
	}
	if o.SMI != "" {
		if err != nil {
			return fmt.Errorf("--compare-smi: %w", err)
		}
		f, err := os.Open(o.SMI)
		if err != nil {
			return fmt.Errorf("%w: --compare-smi: %w", cli.ErrUsage, err)
		}
		defer f.Close()
		if err := compareSMI(w, found, f); err != nil {
			return fmt.Errorf("--compare-smi: %w", err)
		}
		return nil
	}
	lib := worker.Describe(o.ORTLib)
	if err := writeInventory(w, found, err, driver, os.LookupEnv, o.JSON, &lib); err != nil {
		return err
	}
	if o.Check && !gpu.Simulated(o.Select) { // simulated devices need no library
		gpus := 0
		spec := o.Select
		if spec == "" {
			spec = "all"
		}
		sel, selErr := gpu.Select(spec, found, err, os.LookupEnv)
		if selErr != nil {
			return fmt.Errorf("--check: --devices %s: %w", spec, selErr)
		}
		if sel.OnGPU() {
			gpus = len(sel.Devices)
		}
		cpuAsked := strings.HasPrefix(strings.TrimSpace(spec), "cpu")
		if cvd, set := os.LookupEnv("CUDA_VISIBLE_DEVICES"); !sel.OnGPU() && !cpuAsked && set && strings.TrimSpace(cvd) != "" && strings.TrimSpace(cvd) != "-1" {
			// The launcher gave this process GPUs (Slurm's --gres): a run
			// here would fall back to the CPU without them (unless the
			// CPU is what --devices asks for).
			why := "NVML sees no usable GPU"
			if err != nil {
				why = err.Error()
			}
			return fmt.Errorf("%w: --check: CUDA_VISIBLE_DEVICES=%s gives this process GPUs, but --devices %s would run on the CPU (%s): the node's NVIDIA driver is missing or broken; run the job on a node whose driver works (nvidia-smi), or on a CPU node with --devices cpu",
				worker.ErrConfig, cvd, spec, why)
		}
		if problem := gpuProblem(lib, gpus); problem != "" {
			return fmt.Errorf("%w: --check: %s", worker.ErrConfig, problem)
		}
	}
	if o.Sample <= 0 {
		return nil
	}
	if n == nil {
		return fmt.Errorf("--sample: %s", NoDriverLine)
	}
	ctx, cancel := context.WithTimeout(ctx, o.Sample)
	defer cancel()
	sample(ctx, w, n, found, o.Every, o.Log)
	return nil
}
