package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"

	"qa-shard/logits"
	"qa-shard/shard"
)

// outputs are written under temporary names and renamed when the run
// completes, so a failed run never leaves a file that looks finished.
type outputs struct {
	path    string
	file    *os.File
	buf     *bufio.Writer
	answers *shard.Writer
	logits  *logits.Writer
	stdout  bool
}

func createOutputs(o *options) (*outputs, error) {
	out := &outputs{path: o.output}
	for _, p := range []string{o.output, o.logits} {
		if p == "" || p == "-" {
			continue
		}
		if _, err := os.Stat(p); err == nil && !o.overwrite {
			return nil, fmt.Errorf("%w: %s already exists: add --overwrite to replace it, or choose another --output/--logits", errUsage, p)
		}
	}
	if o.output == "-" {
		out.stdout = true
		out.buf = bufio.NewWriterSize(os.Stdout, 1<<20)
	} else {
		f, err := os.Create(o.output + ".partial")
		if err != nil {
			return nil, fmt.Errorf("%w: cannot create --output: %v", errUsage, err)
		}
		out.file, out.buf = f, bufio.NewWriterSize(f, 1<<20)
	}
	out.answers = shard.NewWriter(out.buf)
	if o.logits != "" {
		lw, err := logits.Create(o.logits)
		if err != nil {
			out.abort()
			return nil, fmt.Errorf("%w: cannot create --logits: %v", errUsage, err)
		}
		out.logits = lw
	}
	return out, nil
}

// commit flushes everything and moves the files to their final names.
func (o *outputs) commit() error {
	err := o.answers.Flush()
	err = errors.Join(err, o.buf.Flush())
	if o.file != nil {
		err = errors.Join(err, o.file.Sync(), o.file.Close())
		if err == nil {
			err = os.Rename(o.file.Name(), o.path)
		}
		o.file = nil
	}
	if o.logits != nil {
		err = errors.Join(err, o.logits.Close())
		o.logits = nil
	}
	if err != nil {
		return fmt.Errorf("writing outputs: %w", err)
	}
	return nil
}

// abort removes what an unfinished run wrote; it is a no-op after commit.
func (o *outputs) abort() {
	if o.file != nil {
		o.file.Close()
		os.Remove(o.file.Name())
		o.file = nil
	}
	if o.logits != nil {
		o.logits.Abort()
		o.logits = nil
	}
}
