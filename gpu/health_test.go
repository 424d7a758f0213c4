package gpu

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func xid(m *machine, i int, code uint64) nvml.EventData {
	return nvml.EventData{Device: m.devs[i], EventType: nvml.EventTypeXidCriticalError, EventData: code}
}

// watch starts a watcher over the given GPUs with a short event wait so
// cancellation is quick; it returns the channel and the log.
func watch(t *testing.T, m *machine, idx ...int) (<-chan Health, context.CancelFunc, *observer.ObservedLogs) {
	t.Helper()
	n := m.open(t)
	found, err := n.Devices()
	if err != nil {
		t.Fatal(err)
	}
	var devs []Device
	for _, i := range idx {
		devs = append(devs, found[i])
	}
	core, logs := observer.New(zap.InfoLevel)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch := n.WatchHealth(ctx, devs, WatchOptions{Log: zap.New(core), PollInterval: time.Hour, WaitTimeout: 10 * time.Millisecond})
	return ch, cancel, logs
}

// drain cancels the watcher and returns what was still sent; the channel
// must close.
func drain(cancel context.CancelFunc, ch <-chan Health) []Health {
	cancel()
	var rest []Health
	for h := range ch {
		rest = append(rest, h)
	}
	return rest
}

// Xid 13 (application) on gpu1 is logged only; Xid 79 on gpu2 marks gpu2.
func TestXid79UnhealthyXid13Not(t *testing.T) {
	m := newMachine(t, "h100", 4)
	feed := m.withEvents()
	ch, cancel, logs := watch(t, m, 0, 1, 2, 3)
	feed.ch <- xid(m, 1, 13)
	feed.ch <- xid(m, 2, 79)
	h := <-ch
	want := Health{UUID: uuidOf(2), Index: 2, Xid: 79, Reason: "Xid 79: GPU has fallen off the bus"}
	if h != want {
		t.Fatalf("health = %+v, want %+v", h, want)
	}
	// Events are handled in order, so Xid 13 was handled (and logged) first.
	app := logs.FilterMessageSnippet("application error").FilterField(zap.Uint64("xid", 13))
	if app.Len() != 1 || app.All()[0].ContextMap()["gpu"] != int64(1) {
		t.Errorf("Xid 13 log entries: %v", app.All())
	}
	if rest := drain(cancel, ch); len(rest) != 0 {
		t.Errorf("more health after Xid 79: %+v", rest)
	}
	<-feed.freed // the event set is freed when the watcher stops
}

// A GPU is reported once however many critical events it raises; a
// double-bit ECC event is critical; events of GPUs outside the run are
// logged only.
func TestHealthOncePerGPU(t *testing.T) {
	m := newMachine(t, "h100", 4)
	feed := m.withEvents()
	ch, cancel, logs := watch(t, m, 0, 1)
	feed.ch <- xid(m, 3, 79) // not in this run
	feed.ch <- xid(m, 0, 48)
	feed.ch <- xid(m, 0, 95)
	feed.ch <- nvml.EventData{Device: m.devs[1], EventType: nvml.EventTypeDoubleBitEccError}
	got := []Health{<-ch, <-ch}
	want := []Health{
		{UUID: uuidOf(0), Index: 0, Xid: 48, Reason: "Xid 48: double-bit ECC error"},
		{UUID: uuidOf(1), Index: 1, Reason: "double-bit ECC error"},
	}
	if got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("health = %+v, want %+v", got, want)
	}
	if rest := drain(cancel, ch); len(rest) != 0 {
		t.Errorf("extra health: %+v", rest)
	}
	if logs.FilterMessageSnippet("does not use").Len() != 1 {
		t.Errorf("event on gpu3 not logged as outside the run")
	}
	if l := logs.FilterMessage("GPU unhealthy").FilterField(zap.Bool("already_reported", true)).Len(); l != 1 {
		t.Errorf("%d repeat reports logged, want 1 (Xid 95 after 48)", l)
	}
}

// No event set (containers often refuse): polling finds a lost GPU.
func TestHealthPollingLostGPU(t *testing.T) {
	m := newMachine(t, "h100", 2)
	m.srv.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) { return nil, nvml.ERROR_NO_PERMISSION }
	n := m.open(t)
	found, _ := n.Devices()
	m.tel[1].set(func(tl *tele) { tl.pciRet = nvml.ERROR_GPU_IS_LOST })
	core, logs := observer.New(zap.InfoLevel)
	ctx, cancel := context.WithCancel(context.Background())
	ch := n.WatchHealth(ctx, found, WatchOptions{Log: zap.New(core)})
	h := <-ch
	if want := (Health{UUID: uuidOf(1), Index: 1, Reason: "GPU is lost (ERROR_GPU_IS_LOST)"}); h != want {
		t.Fatalf("health = %+v, want %+v", h, want)
	}
	if rest := drain(cancel, ch); len(rest) != 0 {
		t.Errorf("extra health: %+v", rest)
	}
	if logs.FilterMessageSnippet("polling only").Len() != 1 {
		t.Error("fallback to polling not logged")
	}
}

// Registration refused per GPU: the set is freed, polling reports pending
// and failed row remapping, and a GPU without remapping support is fine.
func TestHealthRegistrationRefusedRowRemap(t *testing.T) {
	m := newMachine(t, "a100", 3)
	feed := m.withEvents()
	for _, tl := range m.tel {
		tl.fail["register"] = nvml.ERROR_NO_PERMISSION
	}
	m.tel[0].fail[MetricRemappedRows] = nvml.ERROR_NOT_SUPPORTED
	m.tel[1].pending = true
	m.tel[2].failed = true
	ch, cancel, logs := watch(t, m, 0, 1, 2)
	<-feed.freed
	got := map[int]Health{}
	for range 2 {
		h := <-ch
		got[h.Index] = h
	}
	if rest := drain(cancel, ch); len(rest) != 0 {
		t.Errorf("extra health: %+v", rest)
	}
	if !strings.Contains(got[1].Reason, "row remapping pending") || got[1].UUID != uuidOf(1) {
		t.Errorf("gpu1: %+v", got[1])
	}
	if !strings.Contains(got[2].Reason, "row remapping failed") || got[2].UUID != uuidOf(2) {
		t.Errorf("gpu2: %+v", got[2])
	}
	if logs.FilterMessageSnippet("polling it").Len() != 3 {
		t.Errorf("registration refusals logged %d times, want 3", logs.FilterMessageSnippet("polling it").Len())
	}
}

// A failing event wait is retried, then given up; polling goes on and the
// run never sees an error. In a synctest bubble the ten retries, 10 ms
// apart, are over once a second of the bubble's time has passed, and Wait
// returns when the watcher has nothing left to do but poll.
func TestHealthEventWaitFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newMachine(t, "h100", 1)
		set := &mock.EventSet{
			WaitFunc: func(uint32) (nvml.EventData, nvml.Return) { return nvml.EventData{}, nvml.ERROR_UNKNOWN },
			FreeFunc: func() nvml.Return { return nvml.SUCCESS },
		}
		m.srv.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) { return set, nvml.SUCCESS }
		ch, cancel, logs := watch(t, m, 0)
		time.Sleep(time.Second)
		synctest.Wait()
		if n := logs.FilterMessageSnippet("given up").Len(); n != 1 {
			t.Fatalf("%d lines saying the events are given up, want 1", n)
		}
		if rest := drain(cancel, ch); len(rest) != 0 {
			t.Errorf("health from a failing event wait: %+v", rest)
		}
	})
}

// Xid events name the parent GPU; a run on a MIG instance must retire it
// by the MIG UUID the selection (and the replicas) use.
func TestMIGRetiredOnParentXid(t *testing.T) {
	m := newMachine(t, "h100", 2)
	m.enableMIG(1, 2)
	feed := m.withEvents()
	n := m.open(t)
	found, err := n.Devices()
	if err != nil {
		t.Fatal(err)
	}
	sel, err := Select(migOf(1, 1), found, nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := n.WatchHealth(ctx, sel.Devices, WatchOptions{PollInterval: time.Hour, WaitTimeout: 10 * time.Millisecond})
	feed.ch <- xid(m, 0, 79) // another GPU: not this run's
	feed.ch <- xid(m, 1, 79)
	want := Health{UUID: migOf(1, 1), Index: 1, Xid: 79, Reason: "Xid 79: GPU has fallen off the bus", Parent: uuidOf(1)}
	if h := <-ch; h != want || h.UUID != sel.Devices[0].UUID {
		t.Errorf("health = %+v, want %+v (the selected device's UUID)", h, want)
	}
	if rest := drain(cancel, ch); len(rest) != 0 {
		t.Errorf("extra health: %+v", rest)
	}
}
