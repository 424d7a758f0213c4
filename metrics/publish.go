package metrics

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"go.uber.org/zap"

	"qa-shard/gpu"
	"qa-shard/internal/errkind"
	"qa-shard/scheduler"
)

// ErrConfig marks metrics settings that cannot work: an address that
// cannot be bound, a textfile that cannot be written.
var ErrConfig = errkind.NewUser("metrics settings")

// Options say where a run publishes its metrics.
type Options struct {
	Addr string // serve /metrics here ("" none; ":0" an OS-chosen port)
	// Output is the run's answers file: the served address is written
	// beside it, <Output>.metrics.json, as a file_sd target list, removed
	// when the run ends ("" or "-": nowhere).
	Output string
	// Textfile is node_exporter's .prom file ("" none), rewritten every
	// Interval.
	Textfile string
	Interval time.Duration
	Rank     int                 // the rank label; the host label is Host()
	GPU      func() []gpu.Sample // nil: no GPU series
	Info     Info                // qa_shard_info's labels
	Journal  string              // the journal whose time is the last checkpoint's ("": none)
	Replicas []string            // every replica's name: its series exist from the start
	Log      *zap.Logger
}

// CheckTextfile refuses a textfile name node_exporter would not read.
func CheckTextfile(path string) error {
	if path != "" && !strings.HasSuffix(path, ".prom") {
		return fmt.Errorf("%w: --metrics-textfile %s: node_exporter's textfile collector reads only files ending in .prom", ErrConfig, path)
	}
	return nil
}

// Start publishes a run's metrics as o says, until ctx ends or the
// returned stop is called (which writes the textfile a last time, with the
// final values, and removes the target file). Its Observer is what the
// scheduler reports to; with neither Addr nor Textfile there is none (nil).
func Start(ctx context.Context, o Options) (scheduler.Observer, func(), error) {
	if o.Addr == "" && o.Textfile == "" {
		return nil, func() {}, nil
	}
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	if o.Interval <= 0 {
		o.Interval = 15 * time.Second
	}
	reg := new(Identity{Rank: o.Rank, Host: Host()})
	reg.SetGPUSource(o.GPU)
	reg.SetInfo(o.Info)
	reg.SetJournal(o.Journal)
	reg.SetReplicas(o.Replicas)
	switch at, from, err := deadlineFromEnv(osGetenv); {
	case err != nil:
		o.Log.Warn(err.Error())
	case from != "":
		reg.SetDeadline(at)
		o.Log.Info("job deadline exported as a metric", zap.String("from", "$"+from), zap.Time("deadline", time.Unix(int64(at), 0)))
	}
	var stops []func()
	stop := func() {
		for _, f := range stops {
			f()
		}
	}
	if o.Addr != "" {
		addr, err := startServer(ctx, o.Addr, reg, o.Log)
		if err != nil {
			return nil, stop, fmt.Errorf("%w: --metrics-addr: %w (with several ranks on a node, use :0: each gets a free port)", ErrConfig, err)
		}
		if o.Output != "" && o.Output != "-" {
			target := o.Output + ".metrics.json"
			host, _ := os.Hostname()
			if err := writeTarget(target, addr, host); err != nil {
				o.Log.Warn("cannot write where the metrics are served", zap.Error(err))
			} else {
				o.Log.Info("metrics address written", zap.String("target_file", target))
				stops = append(stops, func() { os.Remove(target) })
			}
		}
	}
	if o.Textfile != "" {
		if err := CheckTextfile(o.Textfile); err != nil {
			return nil, stop, err
		}
		if err := reg.WriteTextfile(o.Textfile); err != nil {
			return nil, stop, fmt.Errorf("%w: --metrics-textfile: %w", ErrConfig, err)
		}
		stops = append([]func(){reg.Textfile(o.Textfile, o.Interval, o.Log)}, stops...)
		o.Log.Info("metrics textfile", zap.String("path", o.Textfile), zap.Duration("every", o.Interval))
	}
	return reg.Observer(), stop, nil
}

// Host names this node for the host label: Slurm's name for it when Slurm
// started the process (several slurmd may share one machine), else the
// host name.
func Host() string {
	if n := os.Getenv("SLURMD_NODENAME"); n != "" {
		return n
	}
	h, _ := os.Hostname()
	return h
}
