#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are not
# installed yet: `make deps` (and only it) calls this. Needs apt-get and
# root; the packages' own services are not started (policy-rc.d 101), so
# installing slurmd or prometheus starts no daemon.
set -euo pipefail

missing=()
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
	echo "deps: every package is installed ($*)"
	exit 0
fi
if ! command -v apt-get >/dev/null; then
	echo "deps: no apt-get here; install these (Debian's names) with this system's package manager: ${missing[*]}" >&2
	exit 1
fi
if [[ $(id -u) -ne 0 ]]; then
	echo "deps: missing ${missing[*]}: run \`sudo make deps\` (apt-get needs root)" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
prc=/usr/sbin/policy-rc.d
created=0
if [[ ! -e $prc ]]; then
	printf '#!/bin/sh\nexit 101\n' >"$prc"
	chmod 755 "$prc"
	created=1
fi
status=0
{ apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; } || status=$?
if [[ $created = 1 ]]; then rm -f "$prc"; fi
if [[ $status -ne 0 ]]; then
	echo "deps: apt-get install ${missing[*]} failed (exit $status)" >&2
	exit "$status"
fi
