# System packages (Debian's names), installed by `make deps` and
# `make deps-dev` and by nothing else: run them once as root
# (`sudo make deps`). make test runs without them: a test that needs one
# skips with a line naming it and this target, except under CI=true, where
# it fails (.ci/run runs make deps first). The other targets that need one
# stop at once naming the package and the target that installs it.
#
#   DEPS_TEST  make test's Japanese BERT tests (and make eval's Japanese
#              row): libmecab and the IPAdic and UniDic dictionaries
#   DEPS_CI    the other checks .ci/run makes: qemu-user (make
#              test-int8-isa), prometheus with promtool (make
#              prometheus-check and make test's Prometheus tests), Slurm
#              and munge (make slurm-test)
#   DEPS_DEV   regenerating and profiling only: python3-mecab, manpages-ja
#              and debian-policy-ja (make ja-goldens, make
#              bench-tokenizers-ja), python3-sentencepiece (make
#              tokenizer-spm-goldens), linux-perf (make profile-tokenizer),
#              xz-utils (make gpu-kit), python3-torch and
#              libopenblas0-pthread (make train, train-bpe, train-unigram,
#              train-ja)
DEPS_TEST := libmecab2 mecab-ipadic-utf8 unidic-mecab
DEPS_CI := qemu-user prometheus slurmctld slurmd slurm-client munge
DEPS_DEV := python3-mecab manpages-ja debian-policy-ja python3-sentencepiece linux-perf xz-utils \
	python3-torch libopenblas0-pthread

.PHONY: deps deps-dev
deps:
	bash scripts/deps.sh $(DEPS_TEST) $(DEPS_CI)
deps-dev: deps-reference
	bash scripts/deps.sh $(DEPS_DEV)

# $(call require_command,COMMAND,PACKAGE,TARGET): stop when COMMAND is
# not on the PATH, naming its package and the target that installs it.
require_command = @command -v $(1) >/dev/null || { echo "$(1) is missing: run \`sudo make $(3)\` (installs Debian's $(2))" >&2; exit 1; }

# $(call require_packages,PACKAGES,TARGET): stop when one of the Debian
# PACKAGES is not installed, naming them and the target that installs them.
require_packages = @missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then echo "missing Debian's" $$missing": run \`sudo make $(2)\`" >&2; exit 1; fi
