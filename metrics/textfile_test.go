package metrics

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
)

// TestTextfile: the file holds the run's metrics only (node_exporter has
// its own go_ and process_ series), labelled, in the text format; it is
// replaced whole, leaving no temporary file; stop writes the final values.
func TestTextfile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "qa-shard.prom")
	r := new(testID)
	o := r.Observer()
	o.Records(2, 1)
	stop := r.Textfile(path, time.Hour, zap.NewNop())
	o.Records(5, 0)
	stop()
	stop() // twice is harmless
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fams := families(parse(t, f))
	expectValue(t, fams, 2, "qa_shard_documents_total")
	expectValue(t, fams, 7, "qa_shard_records_total", "kind", "answer")
	if names := fams.names(""); len(names) != len(fams.names("qa_shard_")) {
		t.Errorf("the textfile has families besides qa_shard_: %v", names)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("folder holds %d files, want only the textfile", len(entries))
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("textfile mode %v, want 0644 (node_exporter runs as another user)", st.Mode().Perm())
	}

	// A folder that does not exist: an error, and nothing left behind.
	if err := r.WriteTextfile(filepath.Join(dir, "missing", "x.prom")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("writing into a missing folder: %v", err)
	}
}

// TestTextfileReplacesAtomically: a reader never sees a partial file:
// every version read while another is being written parses whole.
func TestTextfileReplacesAtomically(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.prom")
	r := new(testID)
	if err := r.WriteTextfile(path); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			r.Observer().BatchDone("cpu:0", i, i, i, time.Millisecond)
			if err := r.WriteTextfile(path); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	reads := 0
	for {
		select {
		case <-done:
			if reads == 0 {
				t.Error("no read happened")
			}
			return
		default:
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(string(b), "\n") || !strings.Contains(string(b), "qa_shard_windows_total{") {
			t.Fatalf("read a partial textfile (%d bytes)", len(b))
		}
		reads++
	}
}

func TestWriteTarget(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		addr net.Addr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 41234}, "127.0.0.1:41234"},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 41235}, "node-a:41235"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 41236}, "node-a:41236"},
	} {
		path := filepath.Join(dir, "t.json")
		if err := writeTarget(path, tc.addr, "node-a"); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		var sd []struct{ Targets []string }
		if err := json.Unmarshal(b, &sd); err != nil || len(sd) != 1 || !slices.Equal(sd[0].Targets, []string{tc.want}) {
			t.Errorf("%v: file_sd %s (%v), want target %s", tc.addr, b, err, tc.want)
		}
	}
}
