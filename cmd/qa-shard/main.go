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
	if len(args) > 0 && (args[0] == "run" || args[0] == "version" || args[0] == "help" || args[0] == "bench") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "bench":
		return benchCmd(args)
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := runJob(ctx, o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "qa-shard: %v\n", err)
		return exitCode(err)
	}
	return code
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
