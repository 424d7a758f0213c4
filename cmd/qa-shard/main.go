// Command qa-shard runs extractive question answering over a JSONL corpus
// on one or more model replicas. See --help. Each subcommand is a package
// of commands/; here are the dispatch and the one mapping from errors to
// exit codes.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"qa-shard/commands/bench"
	"qa-shard/commands/devices"
	"qa-shard/commands/eval"
	"qa-shard/commands/export"
	"qa-shard/commands/merge"
	"qa-shard/commands/quantize"
	"qa-shard/commands/run"
	"qa-shard/commands/status"
	"qa-shard/commands/tokenize"
	"qa-shard/commands/version"
	"qa-shard/internal/cli"
	"qa-shard/internal/errkind"
	"qa-shard/internal/logs"
)

// Exit codes: the table --help and docs/resume.md show (a test holds
// them equal).
const (
	exitOK       = 0
	exitInternal = 1
	exitUsage    = 2
	exitRecords  = 3
	// exitInterrupted (EX_TEMPFAIL) tells a batch system the job can be
	// requeued and resumed.
	exitInterrupted = 75
)

var exitCodes = []struct {
	code    int
	meaning string
}{
	{exitOK, "complete: every document answered (error records, if any, within --max-errors)"},
	{exitInternal, "internal failure (a bug, an I/O error, or an output changed from outside the run); what was written is saved, --resume continues or says why not"},
	{exitUsage, "usage or configuration error (flags, config file, model folder or a model whose logits are NaN or infinite, ONNX Runtime library, input file, devices, existing or mismatched outputs, an output in use by another run or in a folder that cannot be written); for status, a rank missing, corrupt or mismatched"},
	{exitRecords, "completed, with more error records (bad lines, unanswerable questions) than --max-errors tolerates (default 0); for quantize --check-input, the int8 copy (kept) answers below --check-min-f1"},
	{exitInterrupted, "interrupted and resumable (a signal, every device failed, the disk filled or failed: free space first, or an input file grew after it was read): rerun with --resume; with --output - also when its reader closed it (rerun to start over)"},
}

// build is this build's version, set at build time with
// -ldflags "-X main.build=...".
var build = "dev"

// errUsage marks errors the user fixes by changing the command line.
var errUsage = cli.ErrUsage

// exitCode is the one place errors become exit codes, one a kind: each
// package declares its sentinels with their kind, or marks an outcome no
// sentinel names (errkind.Mark), and the kind travels with them through
// every %w.
func exitCode(err error) int {
	if err == nil || errors.Is(err, pflag.ErrHelp) {
		return exitOK
	}
	switch errkind.Of(err) {
	case errkind.Resumable:
		return exitInterrupted
	case errkind.User:
		return exitUsage
	case errkind.Records:
		return exitRecords
	}
	return exitInternal
}

func main() {
	os.Exit(dispatch(os.Args[1:]))
}

// command returns the subcommand called name (each a package of
// commands/), or nil.
func command(name string) func([]string) error {
	return map[string]func([]string) error{
		"run":      runCmd,
		"merge":    merge.Run,
		"status":   status.Run,
		"tokenize": tokenize.Run,
		"devices":  devices.Run,
		"bench":    bench.Run,
		"quantize": func(args []string) error { return quantize.Run(args, runCmd) },
		"eval":     eval.Run,
		"export":   func(args []string) error { return export.Run(args, runCmd) },
		"version":  func(args []string) error { return version.Run(args, build) },
		"help":     helpCmd,
	}[name]
}

// runCmd is the run subcommand, the default, with this build's version,
// main's table of exit codes for its --help, and the benchmark harness's
// simulated devices for "--devices sim:..." (not in --help: tests).
func runCmd(args []string) error {
	return run.Command{Build: build, ExitCodes: exitCodeLines(), Simulate: bench.Simulated}.Run(args)
}

// runHelp is the top of --help (the flags follow it).
func runHelp() string { return run.Help(exitCodeLines()) }

// exitCodeLines is the table of exit codes as --help shows it, a line a
// code.
func exitCodeLines() string {
	var codes strings.Builder
	for _, c := range exitCodes {
		fmt.Fprintf(&codes, "  %-3d %s\n", c.code, c.meaning)
	}
	return codes.String()
}

// envPackage is what the Python package qa_shard sets to its release when
// it starts this binary: the two are installed together (the wheel), and
// a binary of another release would speak another protocol.
const envPackage = "QA_SHARD_PACKAGE_VERSION"

// checkPackage refuses to run for a Python package of another release
// than this build's (build is RELEASE+BUILD; the release is compared). A
// build without a release (dev: `go build` without make) is not checked.
func checkPackage(build string) error {
	want := os.Getenv(envPackage)
	if want == "" || build == "dev" {
		return nil
	}
	if have, _, _ := strings.Cut(build, "+"); have != want {
		return fmt.Errorf("%w: this qa-shard is release %s (build %s), and the Python package qa_shard that started it is %s: "+
			"install the two from one release (pip install --force-reinstall of the qa-shard wheel), or point QA_SHARD_BIN at a qa-shard %s",
			cli.ErrUsage, have, build, want, want)
	}
	return nil
}

// dispatch runs a subcommand (run when the first argument names
// none), reports its error and returns the exit code.
func dispatch(args []string) int {
	name := "run"
	if len(args) > 0 && command(args[0]) != nil {
		name, args = args[0], args[1:]
	} else if len(args) > 0 && args[0] == "--version" {
		name, args = "version", args[1:]
	}
	err := checkPackage(build)
	if err == nil {
		err = command(name)(args)
	}
	code := exitCode(err)
	if err != nil && code != exitOK {
		prefix := "qa-shard"
		if name != "run" && name != "help" {
			prefix += " " + name
		}
		logs.Final(args, prefix, err, code, code == exitRecords || code == exitInterrupted)
	}
	return code
}
