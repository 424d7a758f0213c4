#!/usr/bin/env bash
# A real two-node Slurm cluster on this host, for tests.
#
#   scripts/slurm/cluster.sh start DIR   # configure, start, wait idle (packages: `sudo make deps`)
#   scripts/slurm/cluster.sh stop DIR    # cancel jobs, stop exactly the daemons start launched
#   scripts/slurm/cluster.sh env DIR     # prints: export SLURM_CONF=DIR/slurm.conf
#
# Runs as root, without cgroups (proctrack/linuxproc, task/none), accounting
# off. Everything lives in DIR: slurm.conf, gres.conf, a private munge key and
# socket, spool, logs, and DIR/pids (one "name pid" line per daemon started).
# Two slurmd daemons (-N n1, -N n2) on free ports make srun -N2 spread tasks
# over two "nodes". The client commands need SLURM_CONF=DIR/slurm.conf.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WAIT_IDLE=${SLURM_TEST_WAIT_IDLE:-90}   # seconds for both nodes to become idle
CPUS_PER_NODE=${SLURM_TEST_CPUS:-}      # default: max(nproc, 2)

die() { echo "cluster.sh: $*" >&2; exit 1; }

usage() { echo "usage: $0 start|stop|env DIR" >&2; exit 2; }

[[ $# -eq 2 ]] || usage
cmd=$1
DIR=$2

require_packages() {
	local missing=()
	command -v slurmctld >/dev/null || missing+=(slurmctld)
	command -v slurmd >/dev/null || missing+=(slurmd)
	command -v srun >/dev/null || missing+=(slurm-client)
	command -v munged >/dev/null || missing+=(munge)
	[[ ${#missing[@]} -eq 0 ]] || die "missing Debian's ${missing[*]}: run \`sudo make deps\`"
}

# port_free PORT: nothing listens on PORT (TCP, IPv4 or IPv6), from /proc/net.
port_free() {
	local hex
	hex=$(printf '%04X' "$1")
	! awk -v p=":$hex" 'NR > 1 && $4 == "0A" && substr($2, length($2) - 4) == p { found = 1 } END { exit !found }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# pick_ports: three free ports, starting at a random base so parallel clusters differ.
pick_ports() {
	local base p n=0 got=()
	base=$((20000 + (RANDOM % 120) * 100))  # below the usual ephemeral range
	for ((p = base; p < base + 100 && n < 3; p++)); do
		if port_free "$p"; then got+=("$p"); n=$((n + 1)); fi
	done
	[[ $n -eq 3 ]] || die "no three free ports near $base"
	echo "${got[@]}"
}

# launch NAME CMD...: start one daemon in the foreground mode (-D/-F) in the
# background, in its own session, and record its pid in DIR/pids.
launch() {
	local name=$1
	shift
	# setsid execs in place (a background job is not a group leader), so $! is the daemon.
	setsid "$@" >"$DIR/log/$name.out" 2>&1 </dev/null &
	echo "$name $!" >>"$DIR/pids"
}

log_tails() {
	local f
	for f in "$DIR"/log/*; do
		[[ -s $f ]] || continue
		echo "----- $f (last 15 lines)" >&2
		tail -n 15 "$f" >&2
	done
}

start() {
	require_packages
	[[ ! -e $DIR/pids ]] || die "$DIR/pids exists: a cluster may be running there; run: $0 stop $DIR"
	mkdir -p "$DIR"/{spool/d-n1,spool/d-n2,spool/ctld,run,log,munge}
	DIR=$(cd "$DIR" && pwd)
	# Jobs may run as other users elsewhere; here everything is root, but keep the
	# folder traversable (munge refuses a socket it thinks is unreachable).
	chmod 755 "$DIR" "$DIR/munge"

	local host cpus ports ctld p1 p2
	host=$(hostname -s)
	cpus=${CPUS_PER_NODE:-$(nproc)}
	((cpus >= 2)) || cpus=2
	ports=$(pick_ports) || exit 1
	read -r ctld p1 p2 <<<"$ports"
	sed -e "s|@HOST@|$host|g" -e "s|@DIR@|$DIR|g" -e "s|@CPUS@|$cpus|g" \
		-e "s|@CTLD_PORT@|$ctld|g" -e "s|@PORT_N1@|$p1|g" -e "s|@PORT_N2@|$p2|g" \
		"$HERE/slurm.conf.two-slurmd.in" >"$DIR/slurm.conf"
	cp "$HERE/gres.conf.in" "$DIR/gres.conf"
	export SLURM_CONF=$DIR/slurm.conf

	# A private munge key and daemon: never touches /etc/munge or a system munged.
	head -c 1024 /dev/urandom >"$DIR/munge/munge.key"
	chmod 400 "$DIR/munge/munge.key"
	: >"$DIR/pids"
	launch munged munged -F --force --socket="$DIR/munge/munge.sock" --key-file="$DIR/munge/munge.key" \
		--log-file="$DIR/log/munged.log" --pid-file="$DIR/run/munged.pid" --seed-file="$DIR/munge/munged.seed"
	local i
	for ((i = 0; i < 50; i++)); do
		[[ -S $DIR/munge/munge.sock ]] && break
		sleep 0.2
	done
	[[ -S $DIR/munge/munge.sock ]] || { log_tails; die "munged did not create its socket"; }

	launch slurmctld slurmctld -D -f "$SLURM_CONF"
	launch slurmd-n1 slurmd -D -f "$SLURM_CONF" -N n1
	launch slurmd-n2 slurmd -D -f "$SLURM_CONF" -N n2

	# Bounded wait: both nodes idle.
	local deadline=$((SECONDS + WAIT_IDLE)) states=""
	while ((SECONDS < deadline)); do
		states=$(sinfo -h -N -o '%N %t' 2>/dev/null | sort -u | tr '\n' ' ' || true)
		if [[ $states == *"n1 idle"* && $states == *"n2 idle"* ]]; then
			echo "cluster.sh: cluster up in $DIR (ports ctld $ctld, n1 $p1, n2 $p2; $cpus CPUs per node): $states" >&2
			return 0
		fi
		if [[ $states == *inval* || $states == *drain* ]]; then
			echo "cluster.sh: a node was refused: $states" >&2
			sinfo -R >&2 || true
			log_tails
			stop_daemons
			die "cluster did not come up"
		fi
		local name pid
		while read -r name pid; do
			kill -0 "$pid" 2>/dev/null || { log_tails; stop_daemons; die "$name (pid $pid) exited during start-up"; }
		done <"$DIR/pids"
		sleep 1
	done
	echo "cluster.sh: nodes not idle after ${WAIT_IDLE}s; sinfo says: ${states:-nothing}" >&2
	log_tails
	stop_daemons
	die "cluster did not come up"
}

# stop_daemons: TERM the recorded pids (slurmd first, munged last), wait for
# them to exit (bounded), KILL what is left, then any slurmstepd that carries
# this cluster's marker in its environment (started by our slurmd).
stop_daemons() {
	[[ -f $DIR/pids ]] || return 0
	local name pid order=(slurmd-n1 slurmd-n2 slurmctld munged) n left
	for n in "${order[@]}"; do
		while read -r name pid; do
			[[ $name == "$n" ]] && kill -TERM "$pid" 2>/dev/null || true
		done <"$DIR/pids"
		# wait for this group before the next one (slurmd talks to slurmctld while stopping)
		for ((i = 0; i < 100; i++)); do
			left=0
			while read -r name pid; do
				[[ $name == "$n" ]] && kill -0 "$pid" 2>/dev/null && left=1
			done <"$DIR/pids"
			[[ $left = 0 ]] && break
			sleep 0.2
		done
	done
	while read -r name pid; do
		if kill -0 "$pid" 2>/dev/null; then
			echo "cluster.sh: $name (pid $pid) ignored SIGTERM; SIGKILL" >&2
			kill -KILL "$pid" 2>/dev/null || true
		fi
	done <"$DIR/pids"
	# Leftover step daemons of this cluster: a slurmstepd keeps its node's
	# slurmd log (in DIR) open; those of other clusters are left alone.
	local p
	for p in $(pgrep -x slurmstepd || true); do
		if ls -l "/proc/$p/fd" 2>/dev/null | grep -qF -- "$DIR/"; then
			echo "cluster.sh: leftover slurmstepd pid $p; SIGKILL" >&2
			kill -KILL "$p" 2>/dev/null || true
		fi
	done
	sleep 0.2
	local alive=()
	while read -r name pid; do
		kill -0 "$pid" 2>/dev/null && alive+=("$name:$pid")
	done <"$DIR/pids"
	if [[ ${#alive[@]} -gt 0 ]]; then
		die "still running after stop: ${alive[*]}"
	fi
	mv "$DIR/pids" "$DIR/pids.stopped"
}

stop() {
	[[ -d $DIR ]] || die "no such folder: $DIR"
	DIR=$(cd "$DIR" && pwd)
	[[ -f $DIR/pids ]] || { echo "cluster.sh: nothing recorded in $DIR/pids; nothing to stop" >&2; return 0; }
	export SLURM_CONF=$DIR/slurm.conf
	# Cancel every job of this cluster and wait (bounded) until none is left.
	if scancel --quiet --user="$(id -un)" 2>/dev/null; then
		for ((i = 0; i < 60; i++)); do
			[[ -z $(squeue -h -o %i 2>/dev/null) ]] && break
			sleep 0.5
		done
	fi
	stop_daemons
	local ours=() name pid
	while read -r name pid; do
		[[ -d /proc/$pid ]] && ours+=("$name:$pid")
	done <"$DIR/pids.stopped"
	[[ ${#ours[@]} -eq 0 ]] || die "processes still present: ${ours[*]}"
	echo "cluster.sh: stopped; none of the recorded pids is running ($(cut -d' ' -f2 "$DIR/pids.stopped" | tr '\n' ' '))" >&2
}

case $cmd in
start) start ;;
stop) stop ;;
env) echo "export SLURM_CONF=$(cd "$DIR" && pwd)/slurm.conf" ;;
*) usage ;;
esac
