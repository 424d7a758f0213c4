#!/usr/bin/env bash
# gpu-kit-unpack.sh PARTS_DIR DEST: checks the parts of the GPU kit against
# PARTS.sha256, joins them, checks the whole archive, unpacks it into DEST
# and checks every file against the kit's SHA256SUMS. Needs only coreutils,
# tar, and xz or python3 (its lzma module). Then run:
#   DEST/qa-shard-gpu-kit/scripts/gpu-check.sh
set -euo pipefail
parts=$(cd "$1" && pwd)
dest=$2
sums=$parts/PARTS.sha256
[ -f "$sums" ] || { echo "gpu-kit-unpack: $sums is missing: copy it with the parts" >&2; exit 1; }
name=$(awk '/\(whole\)$/ {print $2}' "$sums")
want=$(awk '/\(whole\)$/ {print $1}' "$sums")
mapfile -t list < <(grep -v '(whole)$' "$sums" | awk '{print $2}')
missing=()
for p in "${list[@]}"; do [ -f "$parts/$p" ] || missing+=("$p"); done
if [ "${#missing[@]}" -gt 0 ]; then
	echo "gpu-kit-unpack: missing part(s) in $parts: ${missing[*]}" >&2
	exit 1
fi
(cd "$parts" && grep -v '(whole)$' "$sums" | sha256sum --check --quiet) ||
	{ echo "gpu-kit-unpack: a part is damaged (see above): copy it again" >&2; exit 1; }
echo "parts: ${#list[@]} verified"
mkdir -p "$dest"
archive=$dest/$name
(cd "$parts" && cat "${list[@]}") >"$archive"
got=$(sha256sum "$archive" | cut -d' ' -f1)
if [ "$got" != "$want" ]; then
	echo "gpu-kit-unpack: the joined archive's SHA-256 is $got, want $want" >&2
	exit 1
fi
echo "archive: $name $(du -h "$archive" | cut -f1), SHA-256 verified"
if command -v xz >/dev/null; then
	xz -dc "$archive" | tar -x -C "$dest"
else
	python3 -c 'import lzma, sys, tarfile; tarfile.open(fileobj=lzma.open(sys.argv[1])).extractall(sys.argv[2])' "$archive" "$dest"
fi
rm -f "$archive"
kit=$dest/${name%.tar.xz}
(cd "$kit" && sha256sum --check --quiet SHA256SUMS) || { echo "gpu-kit-unpack: unpacked files differ from SHA256SUMS" >&2; exit 1; }
echo "files: $(wc -l <"$kit/SHA256SUMS") verified in $kit"
cat "$kit/KIT"
echo "next: $kit/scripts/gpu-check.sh"
