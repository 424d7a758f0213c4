package main

import (
	"context"
	"fmt"
	"os"

	"go.uber.org/zap"

	"qa-shard/fleet"
	"qa-shard/metrics"
	"qa-shard/scheduler"
	"qa-shard/shard"
)

// startMetrics serves the run's metrics (--metrics-addr) and writes them
// for node_exporter (--metrics-textfile), labelled with the rank and the
// host. With --metrics-addr :0 the OS picks a free port, so any number of
// ranks share a node; the address is logged and written beside the output
// (<output>.metrics.json, a Prometheus file_sd target list, removed when
// the run ends). The returned stop writes the textfile a last time.
func startMetrics(ctx context.Context, o *options, rank shard.Rank, fl *fleet.Fleet, log *zap.Logger) (scheduler.Observer, func(), error) {
	if o.metricsAddr == "" && o.metricsTextfile == "" {
		return nil, func() {}, nil
	}
	reg := metrics.New(metrics.Identity{Rank: rank.Rank, Host: hostLabel()})
	reg.SetGPUSource(fl.Samples)
	var stops []func()
	stop := func() {
		for _, f := range stops {
			f()
		}
	}
	if o.metricsAddr != "" {
		addr, err := metrics.Serve(ctx, o.metricsAddr, reg, log)
		if err != nil {
			return nil, stop, fmt.Errorf("%w: --metrics-addr: %w (with several ranks on a node, use :0: each gets a free port)", errUsage, err)
		}
		fields := []zap.Field{zap.String("url", "http://"+addr.String()+"/metrics")}
		if o.output != "-" {
			target := o.output + ".metrics.json"
			host, _ := os.Hostname()
			if err := metrics.WriteTarget(target, addr, host); err != nil {
				log.Warn("cannot write where the metrics are served", zap.Error(err))
			} else {
				fields = append(fields, zap.String("target_file", target))
				stops = append(stops, func() { os.Remove(target) })
			}
		}
		log.Info("metrics", fields...)
	}
	if o.metricsTextfile != "" {
		path := shard.RankPath(o.metricsTextfile, rank)
		if err := reg.WriteTextfile(path); err != nil {
			return nil, stop, fmt.Errorf("%w: --metrics-textfile: %w", errUsage, err)
		}
		stops = append([]func(){reg.Textfile(path, o.metricsInterval, log)}, stops...)
		log.Info("metrics textfile", zap.String("path", path), zap.Duration("every", o.metricsInterval))
	}
	return reg.Observer(), stop, nil
}

// hostLabel names this node: Slurm's name for it when Slurm started us
// (several slurmd may share one machine), else the host name.
func hostLabel() string {
	if n := os.Getenv("SLURMD_NODENAME"); n != "" {
		return n
	}
	h, _ := os.Hostname()
	return h
}
