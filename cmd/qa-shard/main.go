// Command qa-shard runs extractive question answering over a JSONL corpus
// on one or more model replicas. See --help.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"qa-shard/gpu"
	"qa-shard/shard"
	"qa-shard/worker"
)

// Exit codes, documented in the README and --help.
const (
	exitOK       = 0
	exitInternal = 1
	exitUsage    = 2
	exitRecords  = 3
	// exitInterrupted (EX_TEMPFAIL) tells a batch system the job can be
	// requeued and resumed.
	exitInterrupted = 75
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// errUsage marks errors the user fixes by changing the command line.
var errUsage = errors.New("usage")

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	cmd := "run"
	if len(args) > 0 && (args[0] == "run" || args[0] == "version" || args[0] == "help" || args[0] == "bench" || args[0] == "devices" || args[0] == "merge" || args[0] == "eval") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "bench":
		return benchCmd(args)
	case "devices":
		return devicesCmd(args)
	case "merge":
		return mergeCmd(args)
	case "eval":
		return evalCmd(args)
	case "version":
		fmt.Printf("qa-shard %s\n", version)
		return exitOK
	case "help":
		args = []string{"--help"}
	}
	o, err := parseRun(args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "qa-shard: %v\n", err)
		return exitUsage
	}
	ctx, stop, release := handleSignals(o.drainTimeout)
	defer release()
	code, err := runJob(ctx, stop, o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "qa-shard: %v\n", err)
		return exitCode(err)
	}
	return code
}

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

// exitCode maps an error to the documented exit codes: problems the user
// fixes in flags, files or environment are 2, anything else 1.
func exitCode(err error) int {
	for _, e := range []error{errUsage, worker.ErrConfig, gpu.ErrSelection, shard.ErrNoQuestion} {
		if errors.Is(err, e) {
			return exitUsage
		}
	}
	return exitInternal
}
