// Package logs makes the program's loggers. Every line qa-shard writes to
// standard error comes from one of them, in the format the user chose:
// "json" (one object a line, for a log collector or a batch job's log),
// "console" (readable lines, for a person), or "auto" (console on a
// terminal, JSON otherwise).
package logs

import (
	"fmt"
	"os"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.yaml.in/yaml/v3"
	"golang.org/x/term"

	"qa-shard/internal/errkind"
)

// ErrSettings marks a log format or level that does not exist.
var ErrSettings = errkind.NewUser("log settings")

// Resolve turns auto into console (standard error is a terminal) or json;
// other values are returned as they are.
func Resolve(format string) string {
	if format != "auto" {
		return format
	}
	if term.IsTerminal(int(os.Stderr.Fd())) {
		return "console"
	}
	return "json"
}

// New logs to standard error in format at level.
func New(format, level string) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("%w: --log-level %q: use debug, info, warn or error", ErrSettings, level)
	}
	var enc zapcore.Encoder
	switch Resolve(format) {
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
		return nil, fmt.Errorf("%w: --log-format %q: use auto, console or json", ErrSettings, format)
	}
	return zap.New(zapcore.NewCore(enc, stderr, lvl)), nil
}

// formatIn finds the log format of a command line without parsing it, so
// that even a flag mistake can be reported in that format: the last
// --log-format, else the log-format key of the --config file, else auto;
// resolved to console or json (a value that is no format counts as auto).
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
	if f := Resolve(format); f == "json" || f == "console" {
		return f
	}
	return Resolve("auto")
}

// valueOf is the last value of --name in args (GNU style: --name value or
// --name=value; "--" ends the flags), or "".
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

// Bar is the status line at the bottom of standard error when a person
// watches it (console format on a terminal), for a live progress bar;
// else nil. Log lines written while it is shown go above it.
func Bar(format string) *Status {
	if Resolve(format) == "console" && term.IsTerminal(int(os.Stderr.Fd())) {
		return &Status{stderr}
	}
	return nil
}

// Final writes the line that ends a failed command, in the format args ask
// for (FormatIn): in JSON an error object (a warning when warn is set: an
// outcome to act on rather than a failure) carrying the command and its
// exit code; on a console "command: message".
func Final(args []string, command string, err error, code int, warn bool) {
	if formatIn(args) != "json" {
		fmt.Fprintf(stderr, "%s: %v\n", command, err)
		return
	}
	log, _ := New("json", "info") // cannot fail
	lvl := zapcore.ErrorLevel
	if warn {
		lvl = zapcore.WarnLevel
	}
	log.Log(lvl, err.Error(), zap.String("command", command), zap.Int("exit_code", code))
	log.Sync()
}
