package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// handleSignals: the first SIGINT, SIGTERM or SIGUSR1 closes stop (drain);
// after drain the context is canceled (hard stop), as it is at once on a
// second SIGINT or SIGTERM.
func handleSignals(drain time.Duration) (context.Context, <-chan struct{}, func()) {
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
			case s := <-sigs:
				select {
				case <-stop:
					if s != syscall.SIGUSR1 {
						fmt.Fprintf(os.Stderr, "qa-shard: %v again: stopping now\n", s)
						cancel()
						return
					}
				default:
					fmt.Fprintf(os.Stderr, "qa-shard: %v: reading no more documents; finishing those already read (up to %s), then saving; send it again to stop now\n", s, drain)
					close(stop)
					timer = time.After(drain)
				}
			case <-timer:
				fmt.Fprintln(os.Stderr, "qa-shard: drain timeout: stopping now")
				cancel()
				return
			}
		}
	}()
	return ctx, stop, func() { signal.Stop(sigs); cancel() }
}
