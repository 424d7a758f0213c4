package metrics

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"go.uber.org/zap"
)

// WriteTextfile writes the run's metrics (the qa_shard_ families; not the
// Go and process ones, which node_exporter exports itself under the same
// names) to path in the text format node_exporter's textfile collector
// reads, atomically: a temporary file in the same folder (whose name does
// not end in .prom, so the collector never reads it half written), renamed
// over path.
func (r *Registry) WriteTextfile(path string) error {
	fams, err := r.reg.Gather()
	if err != nil {
		return fmt.Errorf("metrics: gathering: %w", err)
	}
	fams = slices.DeleteFunc(fams, func(f *dto.MetricFamily) bool { return !strings.HasPrefix(f.GetName(), Namespace+"_") })
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("metrics: textfile: %w", err)
	}
	enc := expfmt.NewEncoder(tmp, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range fams {
		if err = enc.Encode(f); err != nil {
			break
		}
	}
	err = errors.Join(err, tmp.Chmod(0o644), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("metrics: textfile %s: %w", path, err)
	}
	return nil
}

// Textfile rewrites path every interval, in the background, until the
// returned stop is called; stop writes it once more, with the final values.
// A failing write is logged, once until one succeeds again, and never
// stops the run: monitoring must not fail a job.
func (r *Registry) Textfile(path string, every time.Duration, log *zap.Logger) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	failing := false
	write := func() {
		err := r.WriteTextfile(path)
		if err != nil && !failing {
			log.Warn("cannot write the metrics textfile", zap.Error(err))
		}
		failing = err != nil
	}
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				write()
				return
			case <-t.C:
				write()
			}
		}
	})
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}

// writeTarget writes where the metrics are served to path as a Prometheus
// file_sd target list ([{"targets": ["host:port"]}]): with an OS-chosen
// port (":0") this is how a scraper, or a person, finds it. A server bound
// to every interface is named by host; one bound to an address, by it.
func writeTarget(path string, addr net.Addr, host string) error {
	h, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return fmt.Errorf("metrics: address %v: %w", addr, err)
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsUnspecified() && host != "" {
		h = host
	}
	b, err := json.Marshal([]map[string][]string{{"targets": {net.JoinHostPort(h, port)}}})
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	return nil
}
