# The shipped Prometheus configuration checked by Prometheus's own tool:
# both scrape configs and the rules parse (promtool check), every alert
# fires when it should and stays quiet on healthy and finished runs
# (promtool test rules), and every query of the Grafana dashboard parses
# (metrics' TestDashboardQueriesParse, through promtool); then a real
# Prometheus server on loopback watches two ranks of a real run
# (TestPrometheusWatchesRanks: the test starts and kills it, about 20 s).
# Needs Debian's prometheus package (prometheus and promtool: `sudo make
# deps`).
PROM_DIR := configs/prometheus

.PHONY: prometheus-check
prometheus-check: ort $(VOCAB_JSON) $(TOKENIZER_FIXTURES)
	$(call require_command,promtool,prometheus,deps)
	$(call require_command,prometheus,prometheus,deps)
	promtool --version | head -n 1
	cd $(PROM_DIR) && promtool check config prometheus.yml && promtool check config prometheus-textfile.yml
	cd $(PROM_DIR) && promtool check rules qa-shard.rules.yml
	cd $(PROM_DIR) && promtool test rules qa-shard.rules.test.yml
	QA_SHARD_REQUIRE_PROMTOOL=1 $(GO) test -tags $(GO_TEST_TAGS) -count=1 -run 'TestDashboard|TestRules' -v ./metrics | grep -E '^(--- |ok|FAIL)'; test "$${PIPESTATUS[0]}" -eq 0
	QA_SHARD_REQUIRE_PROMETHEUS=1 $(TEST_ENV) $(GO) test -tags $(GO_TEST_TAGS) -count=1 -run 'TestPrometheusWatchesRanks' -v ./cmd/qa-shard | grep -E '^(--- |ok|FAIL)'; test "$${PIPESTATUS[0]}" -eq 0
