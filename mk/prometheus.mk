# The shipped Prometheus configuration checked by Prometheus's own tool:
# both scrape configs and the rules parse (promtool check), every alert
# fires when it should and stays quiet on healthy and finished runs
# (promtool test rules), and every query of the Grafana dashboard parses
# (metrics' TestDashboardQueriesParse, through promtool). Installs Debian's
# prometheus package (which ships promtool) when promtool is missing; no
# Prometheus server is started.
PROM_DIR := configs/prometheus

.PHONY: prometheus-check
prometheus-check:
	@command -v promtool >/dev/null || { apt-get update -qq && apt-get install -y -qq prometheus >/dev/null; }
	promtool --version | head -n 1
	cd $(PROM_DIR) && promtool check config prometheus.yml && promtool check config prometheus-textfile.yml
	cd $(PROM_DIR) && promtool check rules qa-shard.rules.yml
	cd $(PROM_DIR) && promtool test rules qa-shard.rules.test.yml
	QA_SHARD_REQUIRE_PROMTOOL=1 $(GO) test -count=1 -run 'TestDashboard|TestRules' -v ./metrics | grep -E '^(--- |ok|FAIL)'; test "$${PIPESTATUS[0]}" -eq 0
