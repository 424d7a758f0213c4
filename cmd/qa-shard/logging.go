package main

import (
	"fmt"
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"golang.org/x/term"
)

// newLogger logs to standard error: readable on a terminal, JSON lines
// otherwise (a batch job's log file, a collector).
func newLogger(format, level string) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("%w: --log-level %q: use debug, info, warn or error", errUsage, level)
	}
	if format == "auto" {
		format = "json"
		if term.IsTerminal(int(os.Stderr.Fd())) {
			format = "console"
		}
	}
	var enc zapcore.Encoder
	switch format {
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

func nopLogger() *zap.Logger { return zap.NewNop() }
