#!/usr/bin/env bash
# make readme-test: README's quick start, word for word, on a lone clone of
# this repository's committed state, as an unprivileged user with a fresh
# HOME: the first ```sh block under "## Quick start", run as written (with
# bash -e, so a command that fails fails the test). Run as root (CI), it
# creates the user qa-readme; run as anyone else, it runs as that user.
# The invoking user's npm registry and CA settings are handed on, as a new
# user's npm would otherwise not have them.
set -euo pipefail
repo=$(git rev-parse --show-toplevel)
work=$(mktemp -d /tmp/qa-shard-readme.XXXXXX)
trap 'rm -rf "$work"' EXIT
block=$(awk '/^## Quick start/ {q = 1} q && /^```sh$/ {f = 1; next} f && /^```$/ {exit} f {print}' "$repo/README.md")
if [[ -z $block ]]; then
	echo "readme-test: README.md has no \`\`\`sh block under ## Quick start" >&2
	exit 1
fi
git clone --quiet --no-hardlinks "$repo" "$work/qa-shard"
mkdir -p "$work/home"
{
	echo "set -euxo pipefail"
	echo "cd $work/qa-shard"
	printf '%s\n' "$block"
} >"$work/quickstart.sh"
run=()
if [[ $(id -u) -eq 0 ]]; then
	id qa-readme >/dev/null 2>&1 || useradd --no-create-home --shell /bin/bash qa-readme
	chown -R qa-readme "$work"
	run=(runuser -u qa-readme --)
fi
env_in=(HOME="$work/home" PATH="$(dirname "$(command -v go)"):/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8)
for v in npm_config_registry:registry npm_config_cafile:cafile; do
	val=$(npm config get "${v#*:}" 2>/dev/null || true)
	[[ -n $val && $val != null && $val != undefined ]] && env_in+=("${v%%:*}=$val")
done
echo "readme-test: running README's quick start in a clone at $work/qa-shard as $(if [[ ${#run[@]} -gt 0 ]]; then echo qa-readme; else id -un; fi):"
printf '  %s\n' "$block"
start=$SECONDS
"${run[@]}" env -i "${env_in[@]}" bash "$work/quickstart.sh"
echo "readme-test: the quick start ran as written, in $((SECONDS - start)) s"
