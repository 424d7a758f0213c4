package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
)

// shutdownGrace bounds how long a scrape in progress may finish after the
// context ends, so shutting down never hangs on a slow client.
const shutdownGrace = 5 * time.Second

// startServer listens on addr and serves r at /metrics until ctx ends. A bare
// ":port" binds 127.0.0.1 only: the metrics name hosts and corpora, and
// exposing them on every interface must be asked for ("0.0.0.0:port").
// It returns the bound address (":0" picks a free port) once listening,
// so a listen failure is returned here, not logged later.
func startServer(ctx context.Context, addr string, r *Registry, log *zap.Logger) (net.Addr, error) {
	a, _, err := serve(ctx, addr, r, log)
	return a, err
}

// serve is Serve, plus a channel closed once the server has stopped, for
// tests that must know the port is released.
func serve(ctx context.Context, addr string, r *Registry, log *zap.Logger) (net.Addr, <-chan struct{}, error) {
	if log == nil {
		log = zap.NewNop()
	}
	bind, err := bindAddr(addr)
	if err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return nil, nil, fmt.Errorf("metrics: listening on %q: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", handler(r, log))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("metrics server stopped", zap.Error(err))
		}
	}()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			_ = srv.Close()
		}
		<-done
	}()
	log.Info("serving metrics", zap.String("url", "http://"+ln.Addr().String()+"/metrics"))
	return ln.Addr(), stopped, nil
}

// bindAddr turns a bare ":port" into "127.0.0.1:port" and checks the form.
func bindAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("metrics: address %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// handler serves r's metrics. ContinueOnError: a failing collector (a GPU
// source gone wrong) is logged, and the run's own metrics are still served.
func handler(r *Registry, log *zap.Logger) http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{
		ErrorLog:      zap.NewStdLog(log),
		ErrorHandling: promhttp.ContinueOnError,
	})
}
