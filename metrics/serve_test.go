package metrics

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/zap"
)

func TestServeBarePortBindsLoopback(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := new(testID)
	r.Observer().Records(4, 1)
	addr, err := startServer(ctx, ":0", r, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		t.Fatalf("address %v is a %T, want *net.TCPAddr", addr, addr)
	}
	if !tcp.IP.Equal(net.IPv4(127, 0, 0, 1)) || tcp.Port == 0 {
		t.Fatalf("bound %v, want 127.0.0.1 and a chosen port", tcp)
	}
	resp, err := http.Get("http://" + addr.String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	f := parse(t, resp.Body)
	expectValue(t, f, 1, "qa_shard_documents_total")
	expectValue(t, f, 4, "qa_shard_records_total", "kind", "answer")
	expectValue(t, f, 1, "qa_shard_records_total", "kind", "error")
}

func TestServeStopsWhenContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	addr, stopped, err := serve(ctx, "127.0.0.1:0", new(testID), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + addr.String() + "/metrics")
	if err != nil {
		t.Fatalf("before cancel: %v", err)
	}
	resp.Body.Close()

	cancel()
	<-stopped
	// The listener is closed: nothing accepts on the port any more.
	if c, err := net.Dial("tcp", addr.String()); err == nil {
		c.Close()
		t.Fatalf("%v still accepts connections after the context ended", addr)
	}
}

func TestServeBadAddress(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, addr := range []string{"no-port-here", ":99999", busy.Addr().String()} {
		ctx, cancel := context.WithCancel(context.Background())
		a, err := startServer(ctx, addr, new(testID), zap.NewNop())
		cancel()
		if err == nil {
			t.Errorf("Serve(%q) bound %v, want an error", addr, a)
			continue
		}
		if !strings.Contains(err.Error(), addr) {
			t.Errorf("Serve(%q): error %q does not name the address", addr, err)
		}
	}
}

func TestBindAddr(t *testing.T) {
	for in, want := range map[string]string{
		":9090":          "127.0.0.1:9090",
		":0":             "127.0.0.1:0",
		"0.0.0.0:9090":   "0.0.0.0:9090",
		"localhost:9090": "localhost:9090",
		"[::1]:9090":     "[::1]:9090",
		"10.1.2.3:80":    "10.1.2.3:80",
	} {
		got, err := bindAddr(in)
		if err != nil || got != want {
			t.Errorf("bindAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
