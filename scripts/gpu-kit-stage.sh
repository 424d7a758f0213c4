#!/usr/bin/env bash
# gpu-kit-stage.sh DEST BIN_DIR ORT_DIR VOCAB_JSON INFO: lays out
# the GPU kit (or its CPU stand-in) in DEST:
#   bin/      qa-shard, genmodel, gencorpus
#   ort/      libonnxruntime.so.1 and, in the GPU kit, its providers
#   vocab/    vocab.json (bert-base-uncased, for the generated models)
#   scripts/  gpu-check.sh and its helpers
#   KIT       what this is and the newest glibc it needs; SHA256SUMS
set -euo pipefail
dest=$1 bindir=$2 ortdir=$3 vocab=$4 info=$5
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dest"/bin "$dest"/ort "$dest"/vocab "$dest"/scripts/gpu-check
cp "$bindir"/qa-shard "$bindir"/genmodel "$bindir"/gencorpus "$dest"/bin/
cp "$ortdir"/lib*.so* "$dest"/ort/
cp "$vocab" "$dest"/vocab/vocab.json
cp "$here"/gpu-check.sh "$dest"/scripts/
cp "$here"/gpu-check/*.py "$dest"/scripts/gpu-check/
# The newest glibc symbol version any binary or library of the kit uses.
glibc=$(for f in "$dest"/bin/* "$dest"/ort/*; do objdump -T "$f" 2>/dev/null; done | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
printf 'kit=%s\nglibc_required=%s\n' "$info" "$glibc" >"$dest"/KIT
(cd "$dest" && find . -type f ! -name SHA256SUMS -printf '%P\n' | sort | xargs sha256sum >SHA256SUMS)
echo "staged $(wc -l <"$dest"/SHA256SUMS) files, $(du -sh "$dest" | cut -f1), in $dest"
