#!/usr/bin/env bash
# gpu-kit-deps.sh ORT_DIR "CUDA_NEEDED" BINARY: prints what the GPU build of
# ONNX Runtime and the qa-shard binary need from the machine (NEEDED
# libraries, newest glibc symbol version) and fails if the CUDA provider
# does not link against exactly the expected CUDA major versions.
set -euo pipefail
ort=$1 expected=$2 bin=$3

glibc() { objdump -T "$1" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1; }
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

newest=0
for f in "$ort"/libonnxruntime.so.1 "$ort"/libonnxruntime_providers_*.so "$bin"; do
	g=$(glibc "$f")
	printf '%s: glibc >= %s; needs %s\n' "$(basename "$f")" "$g" "$(needed "$f" | tr '\n' ' ')"
	newest=$(printf '%s\n%s\n' "$newest" "$g" | sort -V | tail -n 1)
done
echo "glibc_required=$newest"

cuda=$(needed "$ort/libonnxruntime_providers_cuda.so")
bad=0
for lib in $expected; do
	if ! grep -qx "$lib" <<<"$cuda"; then
		echo "FAIL: libonnxruntime_providers_cuda.so does not link against $lib" >&2
		bad=1
	fi
done
# Any other CUDA library version would mean a provider of another CUDA.
for lib in $(grep -E '^lib(cudart|cublas|cublasLt|curand|cufft|cudnn)\.so\.' <<<"$cuda" || true); do
	if ! grep -qw -- "$lib" <<<"$expected"; then
		echo "FAIL: libonnxruntime_providers_cuda.so links against $lib, not in: $expected" >&2
		bad=1
	fi
done
[ "$bad" = 0 ] && echo "CUDA provider links against: $expected (plus the driver's libcuda.so.1)"
exit "$bad"
