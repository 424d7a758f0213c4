package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"
)

// handleSignals: the first SIGINT, SIGTERM or SIGUSR1 closes stop (drain);
// after drain the context is canceled (hard stop), as it is at once on a
// second SIGINT or SIGTERM. What it does is logged.
func handleSignals(drain time.Duration, log *zap.Logger) (context.Context, <-chan struct{}, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	stop := make(chan struct{})
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGUSR1)
	go func() {
		var timer <-chan time.Time
		for {
			select {
			case <-ctx.Done():
				return
			case sig := <-sigs:
				s := unix.SignalName(sig.(syscall.Signal)) // SIGUSR1, not "user defined signal 1"
				select {
				case <-stop:
					if sig != syscall.SIGUSR1 {
						log.Warn(s+" again: stopping now", zap.String("signal", s))
						cancel()
						return
					}
				default:
					log.Warn(s+": reading no more documents; finishing those already read, then saving; send it again to stop now",
						zap.String("signal", s), zap.Duration("drain_timeout", drain))
					close(stop)
					timer = time.After(drain)
				}
			case <-timer:
				log.Warn("drain timeout: stopping now", zap.Duration("drain_timeout", drain))
				cancel()
				return
			}
		}
	}()
	return ctx, stop, func() { signal.Stop(sigs); cancel() }
}
