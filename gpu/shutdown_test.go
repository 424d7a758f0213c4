package gpu

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
)

// Close must not shut NVML down (go-nvml then unloads the library) while
// the sampler or the Xid watcher is inside an NVML call. The sampler is
// held inside a utilization read until the watcher frees its event set,
// which it does only once it has been told to stop: a Close that shuts NVML
// down without stopping and joining them finds a call in progress and the
// set still allocated. Nobody cancels the context: Close alone stops them.
func TestCloseJoinsSamplerAndWatcher(t *testing.T) {
	m := newMachine(t, "h100", 1)
	var inCalls atomic.Int32 // NVML calls in progress
	var freed, first atomic.Bool
	first.Store(true)
	release := make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	entered := make(chan struct{})
	m.devs[0].GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
		inCalls.Add(1)
		defer inCalls.Add(-1)
		if first.CompareAndSwap(true, false) {
			close(entered)
			<-release
		}
		return nvml.Utilization{Gpu: 50}, nvml.SUCCESS
	}
	set := &mock.EventSet{
		WaitFunc: func(ms uint32) (nvml.EventData, nvml.Return) {
			inCalls.Add(1)
			defer inCalls.Add(-1)
			time.Sleep(time.Duration(ms) * time.Millisecond) // what NVML does: wait, then time out
			return nvml.EventData{}, nvml.ERROR_TIMEOUT
		},
		FreeFunc: func() nvml.Return { freed.Store(true); unblock(); return nvml.SUCCESS },
	}
	m.srv.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) { return set, nvml.SUCCESS }
	atShutdown := make(chan string, 1)
	m.srv.ShutdownFunc = func() nvml.Return {
		atShutdown <- fmt.Sprintf("%d NVML call(s) in progress, event set freed %t", inCalls.Load(), freed.Load())
		unblock() // never leave the sampler blocked, whatever Close did
		return nvml.SUCCESS
	}

	n, err := open(m.srv)
	if err != nil {
		t.Fatal(err)
	}
	found, err := n.Devices()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	health := n.WatchHealth(ctx, found, WatchOptions{PollInterval: time.Hour, WaitTimeout: time.Millisecond})
	s := n.NewSampler(found, SamplerOptions{Interval: time.Hour})
	ran := make(chan struct{})
	go func() { s.Run(ctx); close(ran) }()
	<-entered // the sampler is inside an NVML call
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := <-atShutdown, "0 NVML call(s) in progress, event set freed true"; got != want {
		t.Errorf("Shutdown ran with %s; want %s", got, want)
	}
	<-ran
	for range health { // the watcher closes its channel
	}
	if got := s.Sample(); got[0].UtilPercent != -1 {
		t.Errorf("a sample after Close read utilization %d", got[0].UtilPercent)
	}
}
