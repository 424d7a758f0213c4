# make lint: golangci-lint with .golangci.yml (the checks and the layers
# of docs/ARCHITECTURE.md as depguard rules). The linter is built from the
# Go module proxy at a pinned version into build/tools, one folder per
# version, so that changing the pin installs the new one.
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := $(BUILD)/tools/golangci-lint-$(GOLANGCI_LINT_VERSION)/golangci-lint

$(GOLANGCI_LINT):
	GOBIN=$(abspath $(dir $@)) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)

.PHONY: lint
lint: $(GOLANGCI_LINT)
	@# gofmt first: a merge or a scripted edit can leave a file unformatted
	@# that no linter reports.
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "not gofmt-formatted (run gofmt -w):"; echo "$$unformatted"; exit 1; fi
	$(GOLANGCI_LINT) run ./...

# make test-race: under the race detector, the packages that start
# goroutines (scheduler, fleet, gpu, metrics, signals, bench, worker's
# terminate hook) or whose state other goroutines share (tune, output,
# journal, filelock, input's document count). About a minute.
RACE_PACKAGES := ./scheduler ./tune ./gpu ./fleet ./output ./journal ./internal/filelock \
	./input ./metrics ./internal/signals ./commands/bench ./worker/...

.PHONY: test-race
test-race: ort $(VOCAB_JSON)
	$(TEST_ENV) $(GO) test -tags $(GO_TEST_TAGS) -race -count=1 $(RACE_PACKAGES)
