// Package cli is what every subcommand's flags are built with:
// GNU-style parsing with suggestions for a mistyped flag, the log flags,
// and the YAML file that can set any flag. It maps no error to an exit
// code: what the user fixes on the command line wraps ErrUsage, and
// package main decides the code.
package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"qa-shard/internal/errkind"
)

// ErrUsage marks errors the user fixes by changing the command line.
var ErrUsage = errkind.NewUser("usage")

// Parse parses args GNU-style (flags before, between or after the
// positional arguments) and turns a flag mistake into a usage error;
// --help prints help and the flags, and returns pflag.ErrHelp.
func Parse(fs *pflag.FlagSet, args []string, help string) error {
	fs.SortFlags = false
	fs.SetOutput(os.Stdout)
	fs.Usage = func() { fmt.Fprintf(os.Stdout, "%s\n\nFlags:\n%s", help, fs.FlagUsages()) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		for _, a := range args {
			name, _, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
			if len(a) > 2 && a[0] == '-' && a[1] != '-' && fs.Lookup(name) != nil {
				return fmt.Errorf("%w: %s: long flags take two dashes: --%s (see %s --help)", ErrUsage, a, name, fs.Name())
			}
		}
		return fmt.Errorf("%w: %w%s (see %s --help)", ErrUsage, err, suggest(fs, args), fs.Name())
	}
	return nil
}

// NoArgs refuses positional arguments where a subcommand takes none.
func NoArgs(fs *pflag.FlagSet) error {
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q (see %s --help)", ErrUsage, fs.Arg(0), fs.Name())
	}
	return nil
}

// AddLogFlags gives a subcommand the log flags. Every line on standard
// error comes from a logs logger in the format --log-format names; data
// goes to standard output.
func AddLogFlags(fs *pflag.FlagSet, format, level *string) {
	fs.StringVar(format, "log-format", "auto", "auto (console on a terminal, JSON otherwise), console or json: every line on standard error follows it")
	fs.StringVar(level, "log-level", "info", "debug, info, warn or error")
	fs.BoolFuncP("verbose", "v", "log at debug level (--log-level debug)", func(string) error {
		*level = "debug"
		return nil
	})
}

// ApplyConfig sets, from a YAML file of flag names and values, every flag
// the command line did not set (the command line wins). A list sets a
// repeatable flag once per element.
func ApplyConfig(fs *pflag.FlagSet, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w: reading --config: %w", ErrUsage, err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("%w: --config %s is not valid YAML: %w", ErrUsage, path, err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { set[f.Name] = true })
	for k, v := range m {
		if fs.Lookup(k) == nil || k == "config" {
			return fmt.Errorf("%w: --config %s: unknown setting %q (settings are flag names, see --help)", ErrUsage, path, k)
		}
		if set[k] {
			continue
		}
		vals := []any{v}
		if list, ok := v.([]any); ok {
			vals = list
		}
		for _, x := range vals {
			if err := fs.Set(k, fmt.Sprint(x)); err != nil {
				return fmt.Errorf("%w: --config %s: %s: %w", ErrUsage, path, k, err)
			}
		}
	}
	return nil
}
