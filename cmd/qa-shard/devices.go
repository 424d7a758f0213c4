package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"qa-shard/gpu"
)

// noDriverLine is what a user without a GPU sees; scripts grep for it.
const noDriverLine = "no NVIDIA driver found (NVML could not be loaded): qa-shard will run on the CPU (--devices cpu)"

// devicesCmd prints the GPUs NVML sees, numbered as nvidia-smi numbers them,
// and what CUDA_VISIBLE_DEVICES and the default --devices make of them.
// Hidden flags for scripts/gpu-check.sh: --sample D prints telemetry for D,
// --compare-smi FILE checks the list against nvidia-smi's CSV.
func devicesCmd(args []string) int {
	fs := flag.NewFlagSet("qa-shard devices", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	sample := fs.Duration("sample", 0, "")
	every := fs.Duration("sample-interval", time.Second, "")
	compare := fs.String("compare-smi", "", "")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: qa-shard devices [--json]\n\nLists the GPUs NVML sees (nvidia-smi's numbering) and what --devices all would use.\n")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	n, err := gpu.OpenSystem()
	var found []gpu.Device
	driver := ""
	if err == nil {
		defer n.Close()
		driver = n.DriverVersion()
		found, err = n.Devices()
	}
	if *compare != "" {
		return compareCmd(found, err, *compare)
	}
	if err := writeDevices(os.Stdout, found, err, driver, os.LookupEnv, *asJSON); err != nil {
		fmt.Fprintf(os.Stderr, "qa-shard devices: %v\n", err)
		return exitInternal
	}
	if *sample > 0 {
		if n == nil {
			fmt.Fprintf(os.Stderr, "qa-shard devices --sample: %s\n", noDriverLine)
			return exitInternal
		}
		return sampleDevices(n, found, *sample, *every)
	}
	return exitOK
}

// devicesJSON is the --json document.
type devicesJSON struct {
	Driver        bool         `json:"driver"`
	DriverVersion string       `json:"driver_version,omitempty"`
	Message       string       `json:"message,omitempty"`
	Devices       []gpu.Device `json:"devices"`
	CUDAVisible   *visibleJSON `json:"cuda_visible_devices,omitempty"`
	Default       []string     `json:"default_selection"`
	Warnings      []string     `json:"warnings,omitempty"`
}

type visibleJSON struct {
	Value   string   `json:"value"`
	Visible []string `json:"visible"` // UUIDs CUDA may use, in order
}

// writeDevices prints discovery as a table (or JSON). No driver is not an
// error: the user learns the run will be on the CPU. Other NVML failures
// are returned after nothing is printed.
func writeDevices(w io.Writer, found []gpu.Device, foundErr error, driver string, getenv func(string) (string, bool), asJSON bool) error {
	if foundErr != nil && !errors.Is(foundErr, gpu.ErrNoDriver) {
		return foundErr
	}
	doc := devicesJSON{Driver: foundErr == nil, DriverVersion: driver, Devices: append([]gpu.Device{}, found...)}
	if foundErr != nil {
		doc.Message = noDriverLine
	}
	if vis := gpu.Visible(found, getenv); vis.Set {
		doc.CUDAVisible = &visibleJSON{Value: vis.Value, Visible: []string{}}
		for _, u := range vis.Units {
			doc.CUDAVisible.Visible = append(doc.CUDAVisible.Visible, u.UUID)
		}
	}
	sel, err := gpu.Plan("all", found, foundErr, getenv)
	if err != nil {
		doc.Warnings = append(doc.Warnings, "--devices all: "+err.Error())
	}
	for _, d := range sel.Devices {
		doc.Default = append(doc.Default, d.Name())
	}
	doc.Warnings = append(doc.Warnings, sel.Warnings...)
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	return writeTable(w, doc)
}

func writeTable(w io.Writer, doc devicesJSON) error {
	if !doc.Driver {
		fmt.Fprintln(w, doc.Message)
		return nil
	}
	fmt.Fprintf(w, "NVIDIA driver %s, %d GPU(s); INDEX is nvidia-smi's numbering (NVML, PCI bus order)\n\n", doc.DriverVersion, len(doc.Devices))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "INDEX\tUUID\tNAME\tMEMORY FREE/TOTAL\tBUS ID\tCC\tMIG")
	for _, d := range doc.Devices {
		if d.Fault != "" {
			fmt.Fprintf(tw, "%d\t%s\t%s\t\t\t\tFAULT: %s\n", d.Index, orNone(d.UUID), d.Model, d.Fault)
			continue
		}
		mig := "-"
		if d.MIGEnabled {
			mig = fmt.Sprintf("enabled, %d device(s)", len(d.MIGDevices))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Index, d.UUID, d.Model, memory(d), d.BusID, d.ComputeCapability, mig)
		for _, m := range d.MIGDevices {
			// Every cell tab-terminated, so the GPU rows below stay aligned.
			fmt.Fprintf(tw, "  mig%d\t%s\t%s\t%s\t\t\t\n", m.MIGIndex, m.UUID, m.Model, memory(m))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if v := doc.CUDAVisible; v != nil {
		fmt.Fprintf(w, "\nCUDA_VISIBLE_DEVICES=%q restricts this process to: %s\n", v.Value, orNone(strings.Join(v.Visible, ", ")))
	}
	fmt.Fprintf(w, "\n--devices all (the default) would use: %s\n", orNone(strings.Join(doc.Default, ", ")))
	for _, warn := range doc.Warnings {
		fmt.Fprintf(w, "  note: %s\n", warn)
	}
	return nil
}

func memory(d gpu.Device) string {
	if d.MemoryTotal == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f/%.1f GiB", float64(d.MemoryFree)/(1<<30), float64(d.MemoryTotal)/(1<<30))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// sampleDevices prints telemetry and health for d, then the summary: the
// check a person (or gpu-check.sh) runs on a real GPU machine.
func sampleDevices(n *gpu.NVML, found []gpu.Device, d, every time.Duration) int {
	log, err := newLogger("console", "info")
	if err != nil {
		fmt.Fprintf(os.Stderr, "qa-shard devices: %v\n", err)
		return exitInternal
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	s := n.NewSampler(found, gpu.SamplerOptions{Interval: every, Log: log})
	health := n.WatchHealth(ctx, found, gpu.WatchOptions{Log: log, PollInterval: every})
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		for _, smp := range s.Sample() {
			fmt.Printf("%s sample %s unavailable=%v clock_reasons=%#x\n", smp.At.Format(time.TimeOnly), smp, smp.Unavailable, smp.ClockReasons)
		}
		select {
		case h := <-health:
			fmt.Printf("health: gpu%d %s xid=%d %s\n", h.Index, h.UUID, h.Xid, h.Reason)
		case <-ctx.Done():
			for h := range health {
				fmt.Printf("health: gpu%d %s xid=%d %s\n", h.Index, h.UUID, h.Xid, h.Reason)
			}
			fmt.Println("summary:")
			for _, sum := range s.Summary() {
				fmt.Printf("  %s\n", sum)
			}
			return exitOK
		case <-t.C:
		}
	}
}

// compareCmd checks discovery against nvidia-smi's
// --query-gpu=index,uuid,pci.bus_id[,memory.total] --format=csv,noheader
// output.
func compareCmd(found []gpu.Device, foundErr error, path string) int {
	if foundErr != nil {
		fmt.Fprintf(os.Stderr, "qa-shard devices --compare-smi: %v\n", foundErr)
		return exitInternal
	}
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "qa-shard devices --compare-smi: %v\n", err)
		return exitUsage
	}
	defer f.Close()
	if err := compareSMI(os.Stdout, found, f); err != nil {
		fmt.Fprintf(os.Stderr, "qa-shard devices --compare-smi: %v\n", err)
		return exitInternal
	}
	return exitOK
}

// compareSMI prints one line per GPU and fails on any difference in count,
// index, UUID, bus id (compared after normalising case and the domain
// width: NVML "00000000:3B:00.0", legacy "0000:3b:00.0") or, when
// nvidia-smi's fourth column gives it, total memory (MiB, within 1%).
func compareSMI(w io.Writer, found []gpu.Device, smi io.Reader) error {
	var rows [][4]string
	sc := bufio.NewScanner(smi)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		parts := strings.Split(line, ",")
		if len(parts) != 3 && len(parts) != 4 {
			return fmt.Errorf("nvidia-smi line %q: want index, uuid, pci.bus_id[, memory.total]", line)
		}
		var r [4]string
		for i, p := range parts {
			r[i] = strings.TrimSpace(p)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading nvidia-smi output: %w", err)
	}
	bad := 0
	if len(rows) != len(found) {
		fmt.Fprintf(w, "MISMATCH: nvidia-smi lists %d GPUs, qa-shard %d\n", len(rows), len(found))
		bad++
	}
	for i, r := range rows {
		idx, _ := strconv.Atoi(r[0])
		if i >= len(found) {
			break
		}
		d := found[i]
		ok := idx == d.Index && r[1] == d.UUID && normBus(r[2]) == normBus(d.BusID) && sameMiB(r[3], d.MemoryTotal)
		verdict := "ok"
		if !ok {
			verdict, bad = "MISMATCH", bad+1
		}
		fmt.Fprintf(w, "%s: nvidia-smi %s %s %s %s | qa-shard %d %s %s %d MiB\n", verdict, r[0], r[1], r[2], r[3], d.Index, d.UUID, d.BusID, d.MemoryTotal>>20)
	}
	if bad > 0 {
		return fmt.Errorf("%d difference(s) between qa-shard devices and nvidia-smi", bad)
	}
	return nil
}

// sameMiB compares nvidia-smi's memory.total ("81559" or "81559 MiB"; ""
// when not asked) with NVML's total bytes, within 1%.
func sameMiB(smi string, total uint64) bool {
	if smi == "" {
		return true
	}
	mib, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(smi, "MiB")), 64)
	if err != nil {
		return false
	}
	have := float64(total) / (1 << 20)
	return math.Abs(mib-have) <= 0.01*max(mib, have)
}

func normBus(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if dom, rest, ok := strings.Cut(s, ":"); ok && len(dom) < 8 {
		s = strings.Repeat("0", 8-len(dom)) + dom + ":" + rest
	}
	return s
}
