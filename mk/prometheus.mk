# The shipped Prometheus configuration checked by Prometheus's own tool:
# both scrape configs and the rules parse (promtool check), every alert
# fires when it should and stays quiet on healthy and finished runs
# (promtool test rules), and every query of the Grafana dashboard parses
# (metrics' TestDashboardQueriesParse, through promtool); then a real
# Prometheus server on loopback watches two ranks of a real run
# (TestPrometheusWatchesRanks: the test starts and kills it, about 20 s).
# Needs promtool and prometheus on PATH (Debian's prometheus package:
# make prometheus-deps installs it, as root); it stops and says so when
# they are missing, installing nothing itself.
PROM_DIR := configs/prometheus

.PHONY: prometheus-check
prometheus-check: ort $(VOCAB_JSON) $(TOKENIZER_FIXTURES)
	@command -v promtool >/dev/null && command -v prometheus >/dev/null || { echo "prometheus-check: promtool and prometheus are not on PATH: install Debian's prometheus package (make prometheus-deps, as root), or put both binaries on PATH"; exit 1; }
	promtool --version | head -n 1
	cd $(PROM_DIR) && promtool check config prometheus.yml && promtool check config prometheus-textfile.yml
	cd $(PROM_DIR) && promtool check rules qa-shard.rules.yml
	cd $(PROM_DIR) && promtool test rules qa-shard.rules.test.yml
	QA_SHARD_REQUIRE_PROMTOOL=1 $(GO) test -tags $(GO_TEST_TAGS) -count=1 -run 'TestDashboard|TestRules' -v ./internal/metrics | grep -E '^(--- |ok|FAIL)'; test "$${PIPESTATUS[0]}" -eq 0
	QA_SHARD_REQUIRE_PROMETHEUS=1 $(TEST_ENV) $(GO) test -tags $(GO_TEST_TAGS) -count=1 -run 'TestPrometheusWatchesRanks' -v ./cmd/qa-shard | grep -E '^(--- |ok|FAIL)'; test "$${PIPESTATUS[0]}" -eq 0

# Debian's prometheus package (prometheus and promtool), for
# prometheus-check; needs root. CI runs it before prometheus-check.
.PHONY: prometheus-deps
prometheus-deps:
	@command -v promtool >/dev/null && command -v prometheus >/dev/null || { apt-get update -qq && apt-get install -y -qq prometheus >/dev/null; }
