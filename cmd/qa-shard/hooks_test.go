//go:build testhooks

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"qa-shard/commands/merge"
	"qa-shard/internal/record"
	"qa-shard/internal/signals"
	"qa-shard/job"
	"qa-shard/output"
	"qa-shard/qa"
	"qa-shard/scheduler"
)

// Test hooks: a child process started by startChild reads these
// environment variables (only the test binary does) and stops, pauses or
// kills itself at a chosen document, so the process-level tests are driven
// by progress, never by timing.
const (
	// envKillAt=K: at the answer record of document K, checkpoint the K
	// documents before it, hand the record over and flush it to the file
	// (a tail the journal does not cover), then SIGKILL this process. For
	// corpora with one record per document.
	envKillAt = "QA_SHARD_TEST_KILL_AT"
	// envPauseAt=K: when document K is read, wait until standard input
	// closes (the test holds the process, and its locks, that long).
	envPauseAt = "QA_SHARD_TEST_PAUSE_AT"
	// envSignalAt=K:SIG[,SIG]: when document K is read, send this process
	// the signal and wait until the run sees it (the graceful stop); with a
	// second signal, send it too and wait for the hard stop. Reading ends
	// there. K:SIG*2 sends the signal again as soon as the run saw it,
	// as a launcher that signals the process and its group does.
	envSignalAt = "QA_SHARD_TEST_SIGNAL_AT"
	// envHold=cancel|stuck, with envSignalAt: from the signal on, every
	// batch that starts holds its replica until the run is cancelled
	// (cancel), or for ever, as a device that ignores cancellation would
	// (stuck). A stop that waited for the work read would never end.
	envHold = "QA_SHARD_TEST_HOLD"
	// envInputAt=K:ACTION:PATH: when document K is read, change the input
	// file PATH under the run: overwrite (the same size, another text, in
	// place), truncate (to half), replace (another file renamed over it)
	// or append (more documents at its end), or finish (the rest of
	// halfLine, whose first half ends the file).
	envInputAt = "QA_SHARD_TEST_INPUT_AT"
	// envOutputAt=K:ACTION:PATH: at the first record of document K,
	// checkpoint the K documents before it, then change the answers file
	// PATH under the run: truncate (to 0 bytes), remove, or removedir (its
	// folder, with all in it). For corpora
	// with one record per document.
	envOutputAt = "QA_SHARD_TEST_OUTPUT_AT"
	// envWriteAt=K: at the first record of document K, before it is
	// written, wait until standard input closes (the test reads what
	// reached standard output meanwhile). For corpora with one record
	// per document.
	envWriteAt = "QA_SHARD_TEST_WRITE_AT"
	// envMergeKillAt=N: merge prints "merge step K: what" on standard
	// error before each change it makes on disk (merge.Options.Step),
	// and SIGKILLs itself before step N (none when N is past the last).
	envMergeKillAt = "QA_SHARD_TEST_MERGE_KILL_AT"
)

// installHooks sets job.TestHook (and merge.TestStep) from the environment.
func installHooks() {
	if v, ok := os.LookupEnv(envMergeKillAt); ok {
		killAt, _ := strconv.Atoi(v)
		step := 0
		merge.TestStep = func(what string) error {
			fmt.Fprintf(os.Stderr, "merge step %d: %s\n", step, what)
			if step == killAt {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {}
			}
			step++
			return nil
		}
	}
	killAt, pauseAt, writeAt := envInt(envKillAt), envInt(envPauseAt), envInt(envWriteAt)
	signalAt, signals, signalTwice := int64(-1), []syscall.Signal(nil), false
	if v := os.Getenv(envSignalAt); v != "" {
		k, sigs, _ := strings.Cut(v, ":")
		signalAt, _ = strconv.ParseInt(k, 10, 64)
		for _, s := range strings.Split(sigs, ",") {
			name, twice := strings.CutSuffix(s, "*2")
			sig := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP, "QUIT": syscall.SIGQUIT, "USR1": syscall.SIGUSR1}[name]
			signals = append(signals, sig)
			if twice {
				signalTwice = true
			}
		}
	}
	inputAt, inputAction, inputPath := int64(-1), "", ""
	if v := os.Getenv(envInputAt); v != "" {
		parts := strings.SplitN(v, ":", 3)
		inputAt, _ = strconv.ParseInt(parts[0], 10, 64)
		inputAction, inputPath = parts[1], parts[2]
	}
	outputAt, outputAction, outputPath := int64(-1), "", ""
	if v := os.Getenv(envOutputAt); v != "" {
		parts := strings.SplitN(v, ":", 3)
		outputAt, _ = strconv.ParseInt(parts[0], 10, 64)
		outputAction, outputPath = parts[1], parts[2]
	}
	if killAt < 0 && pauseAt < 0 && signalAt < 0 && inputAt < 0 && outputAt < 0 && writeAt < 0 {
		return
	}
	hold := os.Getenv(envHold)
	job.TestHook = func(ctx context.Context, stop <-chan struct{}, out *output.Outputs, src scheduler.Source, answers record.Sink,
		replicas []scheduler.Replica) (scheduler.Source, record.Sink, []scheduler.Replica) {
		h := &hookSource{Source: src, ctx: ctx, stop: stop, pauseAt: pauseAt, signalAt: signalAt, signals: signals, twice: signalTwice, records: map[int64]int{},
			inputAt: inputAt, inputAction: inputAction, inputPath: inputPath}
		if killAt >= 0 || outputAt >= 0 || writeAt >= 0 {
			answers = &recordSink{Sink: answers, in: h, out: out, seq: out.Skip, killAt: killAt, changeAt: outputAt, change: outputAction, changePath: outputPath,
				pauseAt: writeAt}
		}
		if hold != "" {
			held := make([]scheduler.Replica, len(replicas))
			for i, r := range replicas {
				held[i] = &holdReplica{Replica: r, held: &h.held, stuck: hold == "stuck"}
			}
			replicas = held
		}
		return h, answers, replicas
	}
}

func envInt(name string) int64 {
	n, err := strconv.ParseInt(os.Getenv(name), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

type hookSource struct {
	scheduler.Source
	ctx               context.Context
	stop              <-chan struct{}
	pauseAt, signalAt int64
	signals           []syscall.Signal
	twice             bool // the first signal is sent twice at once
	ended             bool
	inputAt           int64 // envInputAt
	inputAction       string
	inputPath         string
	held              atomic.Bool // envHold: batches hold from now on

	mu      sync.Mutex
	records map[int64]int // records each document read will have
}

func (h *hookSource) Next() (record.Document, error) {
	if h.ended {
		return record.Document{}, context.Canceled
	}
	d, err := h.Source.Next()
	if err != nil {
		return d, err
	}
	h.mu.Lock()
	h.records[d.Seq] = max(len(d.Questions), 1)
	if d.Err != nil {
		h.records[d.Seq] = 1
	}
	h.mu.Unlock()
	if d.Seq == h.inputAt {
		if err := changeInput(h.inputAction, h.inputPath); err != nil {
			fmt.Fprintln(os.Stderr, "input hook:", err)
		}
	}
	if d.Seq == h.pauseAt {
		_, _ = io.Copy(io.Discard, os.Stdin) // until the test closes it
	}
	if d.Seq == h.signalAt {
		h.ended = true
		h.held.Store(true)
		syscall.Kill(os.Getpid(), h.signals[0])
		<-h.stop
		if h.twice {
			// Once the first is counted, so that the kernel does not
			// merge the two: the second delivery a launcher makes.
			syscall.Kill(os.Getpid(), h.signals[0])
		}
		if len(h.signals) > 1 {
			// A second stop is a signal sent later than signals.Repeat
			// after the first was counted (before stop closed): sooner,
			// it is the same one delivered twice.
			time.Sleep(signals.Repeat)
			syscall.Kill(os.Getpid(), h.signals[1])
			<-h.ctx.Done()
		}
	}
	return d, nil
}

// holdReplica holds every batch that starts once held is set (envHold).
type holdReplica struct {
	scheduler.Replica
	held  *atomic.Bool
	stuck bool
}

func (r *holdReplica) Run(ctx context.Context, b qa.Batch) (qa.Logits, error) {
	if !r.held.Load() {
		return r.Replica.Run(ctx, b)
	}
	if r.stuck {
		select {}
	}
	<-ctx.Done()
	return qa.Logits{}, ctx.Err()
}

// recordSink follows the documents through their records (the writer
// hands them over in Seq order) to kill the process (envKillAt), change
// the answers file (envOutputAt) or pause (envWriteAt) at a chosen one.
type recordSink struct {
	record.Sink
	in                             *hookSource
	out                            *output.Outputs
	seq, killAt, changeAt, pauseAt int64
	change, changePath             string
	written                        int // records of document seq so far
}

func (k *recordSink) WriteAnswer(r record.AnswerRecord) error {
	k.hook()
	return k.done(k.Sink.WriteAnswer(r))
}

func (k *recordSink) WriteError(r record.ErrorRecord) error {
	k.hook()
	return k.done(k.Sink.WriteError(r))
}

// hook runs before a record: at the first record of document pauseAt it
// waits; at that of killAt or changeAt it checkpoints the documents
// before it, and arms the kill or changes the answers.
func (k *recordSink) hook() {
	if k.seq == k.pauseAt && k.written == 0 {
		_, _ = io.Copy(io.Discard, os.Stdin) // until the test closes it
		return
	}
	if (k.seq != k.killAt && k.seq != k.changeAt) || k.written != 0 {
		return
	}
	if err := k.out.Checkpoint(k.seq); err != nil {
		fmt.Fprintln(os.Stderr, "record hook:", err)
	}
	if k.seq == k.changeAt {
		if err := changeOutput(k.change, k.changePath); err != nil {
			fmt.Fprintln(os.Stderr, "output hook:", err)
		}
	}
}

// done runs after a record: after the first record of document killAt
// is handed over it is flushed behind the journal, and the process dies.
func (k *recordSink) done(err error) error {
	if k.seq == k.killAt {
		if err := k.out.Flush(); err != nil {
			return err
		}
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	k.written++
	k.in.mu.Lock()
	n := k.in.records[k.seq]
	if k.written == n {
		delete(k.in.records, k.seq)
		k.seq, k.written = k.seq+1, 0
	}
	k.in.mu.Unlock()
	return err
}

// changeOutput changes the answers file at path under the running job
// (envOutputAt).
func changeOutput(action, path string) error {
	switch action {
	case "truncate":
		return os.Truncate(path, 0)
	case "remove":
		return os.Remove(path)
	case "removedir": // the folder of the outputs, all of them
		return os.RemoveAll(filepath.Dir(path))
	}
	return fmt.Errorf("unknown output change %q", action)
}

// changeInput changes the input file at path under the running job
// (envInputAt).
func changeInput(action, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	other := bytes.ReplaceAll(b, []byte("the"), []byte("THE")) // the same size, another text
	switch action {
	case "overwrite":
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteAt(other, 0)
		return err
	case "truncate":
		return os.Truncate(path, int64(len(b)/2))
	case "replace":
		if err := os.WriteFile(path+".new", other, 0o644); err != nil {
			return err
		}
		return os.Rename(path+".new", path)
	case "append":
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		for i := range appended {
			if _, err := fmt.Fprintf(f, "{\"id\":\"appended-%d\",\"context\":\"The company was founded by engineers in Lisbon.\"}\n", i); err != nil {
				return err
			}
		}
		return nil
	case "finish":
		// The rest of halfLine, whose first half ends the file.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteString(halfLine[len(halfLine)/2:] + "\n")
		return err
	}
	return fmt.Errorf("unknown input change %q", action)
}

// halfLine is a record written in two halves: a test ends the input with
// its first half, and envInputAt's finish appends the rest.
const halfLine = `{"id":"written-late","context":"The company was founded by engineers in Lisbon."}`

// appended is how many documents envInputAt's append adds.
const appended = 5
