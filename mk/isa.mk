# The int8 tests on CPUs this machine is not: the quantize package's tests
# run under QEMU's user-mode emulator as an AVX2-only CPU (Haswell: AVX2,
# no AVX-512, no VNNI), whose u8 x s8 kernels saturate 16-bit sums. CPUID
# is QEMU's, so ONNX Runtime picks its AVX2 kernels and runs them as they
# are, instruction by instruction: the figures are those of a real AVX2
# machine, only slower (about 3 minutes). QEMU's TCG has no AVX-512, so
# AVX-512 without VNNI cannot be emulated this way; AMX neither.
# Needs Debian's qemu-user (`sudo make deps`).
QEMU_CPU ?= Haswell
QEMU_ISA ?= AVX2
ISA_TEST := $(BUILD)/isa/quantize.test

.PHONY: test-int8-isa
test-int8-isa: ort $(VOCAB_JSON)
	$(call require_command,qemu-x86_64,qemu-user,deps)
	@mkdir -p $(dir $(ISA_TEST))
	$(GO) test -tags $(GO_TEST_TAGS) -c -o $(ISA_TEST) ./quantize
	cd quantize && $(TEST_ENV) QA_SHARD_EXPECT_ISA="$(QEMU_ISA)" qemu-x86_64 -cpu $(QEMU_CPU) $(abspath $(ISA_TEST)) -test.count=1 -test.v -test.run 'Test' 2>&1 \
		| grep -v 'TCG doesn.t support requested feature' | tee $(abspath $(BUILD))/isa/quantize-$(QEMU_CPU).log \
		| grep -E '^(--- (PASS|FAIL|SKIP)|ok|FAIL|PASS)|scheme_test|ort_test|bert_test'; \
		test "$${PIPESTATUS[0]}" -eq 0
