package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.yaml.in/yaml/v3"
	"golang.org/x/term"
)

// Every line qa-shard writes to standard error goes through a logger made
// here, in the format --log-format names: with json, each line is one JSON
// object (progress, summary, signals, errors and their hints included), so
// a log collector reads the whole stream; console keeps readable lines and
// the end-of-run table. Data goes to standard output (answers with
// --output -, the devices table, bench's tables, help).

// addLogFlags gives a subcommand the log flags.
func addLogFlags(fs *pflag.FlagSet, format, level *string) {
	fs.StringVar(format, "log-format", "auto", "auto (console on a terminal, JSON otherwise), console or json: every line on standard error follows it")
	fs.StringVar(level, "log-level", "info", "debug, info, warn or error")
}

// resolveFormat turns auto into console (standard error is a terminal) or
// json.
func resolveFormat(format string) string {
	if format != "auto" {
		return format
	}
	if term.IsTerminal(int(os.Stderr.Fd())) {
		return "console"
	}
	return "json"
}

// newLogger logs to standard error in the format asked for.
func newLogger(format, level string) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("%w: --log-level %q: use debug, info, warn or error", errUsage, level)
	}
	var enc zapcore.Encoder
	switch resolveFormat(format) {
	case "json":
		cfg := zap.NewProductionEncoderConfig()
		cfg.EncodeTime = zapcore.ISO8601TimeEncoder
		enc = zapcore.NewJSONEncoder(cfg)
	case "console":
		cfg := zap.NewDevelopmentEncoderConfig()
		cfg.EncodeTime = zapcore.TimeEncoderOfLayout("15:04:05")
		cfg.EncodeCaller = nil
		enc = zapcore.NewConsoleEncoder(cfg)
	default:
		return nil, fmt.Errorf("%w: --log-format %q: use auto, console or json", errUsage, format)
	}
	return zap.New(zapcore.NewCore(enc, zapcore.Lock(os.Stderr), lvl)), nil
}

// formatIn finds the log format of a command line before (or without) its
// subcommand parsing it, so that even a flag mistake is reported in that
// format: --log-format as a flag, else the log-format key of --config, else
// auto. A value that is not a format counts as auto.
func formatIn(args []string) string {
	format, config := valueOf(args, "log-format"), valueOf(args, "config")
	if format == "" && config != "" {
		var m struct {
			Format string `yaml:"log-format"`
		}
		if b, err := os.ReadFile(config); err == nil && yaml.Unmarshal(b, &m) == nil {
			format = m.Format
		}
	}
	switch format = resolveFormat(format); format {
	case "json", "console":
		return format
	}
	return resolveFormat("auto")
}

// valueOf is the last value of --name in args (GNU style, "--" ends the
// flags), or "".
func valueOf(args []string, name string) string {
	v := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return v
		case a == "--"+name && i+1 < len(args):
			v = args[i+1]
			i++
		case strings.HasPrefix(a, "--"+name+"="):
			v = strings.TrimPrefix(a, "--"+name+"=")
		}
	}
	return v
}

// reportError writes the line that ends a failed command: in JSON, an
// error (or, for the resumable outcomes 3 and 75, a warning) object with
// the exit code; on a console, "qa-shard: message".
func reportError(args []string, command string, err error, code int) {
	prefix := "qa-shard"
	if command != "run" && command != "help" {
		prefix += " " + command
	}
	if formatIn(args) != "json" {
		fmt.Fprintf(os.Stderr, "%s: %v\n", prefix, err)
		return
	}
	log, _ := newLogger("json", "info")
	lvl := zapcore.ErrorLevel
	if code == exitRecords || code == exitInterrupted {
		lvl = zapcore.WarnLevel
	}
	log.Log(lvl, err.Error(), zap.String("command", prefix), zap.Int("exit_code", code))
	log.Sync()
}
