#!/usr/bin/env bash
# The steady run of issue 26: does throughput decay over a long run on a Redis Cluster? One of the source articles
# measured a 3-master, 3-replica cluster whose single-connection throughput fell steadily over a run with 60 looping
# threads. This script runs MatrixBenchmark's mix (80/20 GET/SET of 32-byte values over 10,000 keys spread over
# the slots of all three masters) at 60 threads for each setup (stock Spring Boot with commons-pool2, lettuce-tuning's
# default mode, its multi mode), one fork each, against a cluster of its own (RedisClusterTopology: 3 masters with one
# replica each, local redis-server processes on loopback ports). The setups run one after another, not
# simultaneously, so a slow spell of the machine lands on one of them only: read each setup's ratio against its own
# first minute, not one setup's minutes against another's.
#
# Each measurement iteration is one interval (a minute by default): the harness records the commands the masters
# counted (INFO commandstats) per iteration, with latency percentiles and client CPU per command. JMH's threads
# meet at each interval's end and start again at once (no wait for a quiet machine between intervals), so the
# run is continuous but for that rendezvous. A warm-up of 30 s comes first so that minute 1 measures a warmed JIT, not
# the start; WARMUP='-wi 0' measures from the first command, as an application's first minutes run.
# Then it prints the table of scripts/summarize.py --steady (the rate per interval and setup; first, last, their
# ratio, the lowest and highest interval, p99 and client CPU per command first and last) and writes it to steady.md in
# the results directory.
#
# Usage: benchmarks/scripts/steady.sh [--no-build] [--report-only]
#   --no-build     use the jar as built
#   --report-only  only print the table of the results already in the results directory
# Environment: MINUTES the number of intervals (default 10); INTERVAL the length of one (default 60s, JMH's -r,
# e.g. INTERVAL=10s for a smoke run); THREADS (default 60); WARMUP the warm-up options (default '-wi 1 -w 30s');
# SETUPS (default stock,default,multi; any setup of ClientSetups that starts a Spring application); RESULTS the
# results directory (default benchmarks/results/steady); JAVA picks the JVM, JAVA_OPTS options for the JMH host JVM
# (e.g. -Djmh.ignoreLock=true next to another JMH run, only for smoke runs); JMH_ARGS is appended to every JMH command
# line; MAVEN_ARGS (read by Maven itself) adds options to the build, e.g. MAVEN_ARGS='-o -Dmaven.repo.local=...'.
#
# Duration: per setup about 20 s of start-up (JVM, the 6-node cluster, 10,000 keys, the Spring application), the
# warm-up and MINUTES intervals: with the defaults 3 x (20 s + 30 s + 10 min), about 33 minutes.
# Needs redis-server and redis-cli on the PATH (the cluster is created with redis-cli --cluster create).
# Output: JMH JSON per setup (jmh-steady-SETUP.json), the side file (side-steady.jsonl) and the console log of each
# fork (steady-SETUP.log, with -prof gc's figures per interval), all untracked, and steady.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

JAVA="${JAVA:-java}"
JAR="$ROOT/benchmarks/target/lettuce-tuning-benchmarks.jar"
RESULTS="${RESULTS:-$ROOT/benchmarks/results/steady}"
MATRIX="io.github.lettucetuning.benchmarks.modes.MatrixBenchmark"
SETUPS="${SETUPS:-stock,default,multi}"
MINUTES="${MINUTES:-10}"
INTERVAL="${INTERVAL:-60s}"
THREADS="${THREADS:-60}"

build=true
benchmarks=true
for arg in "$@"; do
	case "$arg" in
		--no-build) build=false ;;
		--report-only) build=false; benchmarks=false ;;
		*) echo "Unknown option $arg" >&2; exit 2 ;;
	esac
done

# shellcheck disable=SC2206
warmup=(${WARMUP:--wi 1 -w 30s})
# shellcheck disable=SC2206
extra=(${JMH_ARGS:-})
# shellcheck disable=SC2206
java_opts=(${JAVA_OPTS:-})

log() {
	echo "[steady $(date +%H:%M:%S)] $*"
}

if $build; then
	log "Building $JAR"
	./mvnw -B -q -DskipTests -pl benchmarks -am package
fi

if $benchmarks; then
	mkdir -p "$RESULTS"
	rm -f "$RESULTS"/jmh-steady-*.json "$RESULTS"/side-steady.jsonl "$RESULTS"/steady-*.log
	IFS=',' read -ra setups <<< "$SETUPS"
	for setup in "${setups[@]}"; do
		log "$setup: $MINUTES intervals of $INTERVAL at $THREADS threads, 80/20 GET/SET on a 3-master, 3-replica cluster"
		"$JAVA" "${java_opts[@]}" -jar "$JAR" "${MATRIX}\.(mix)\$" -t "$THREADS" -f 1 -p "setup=$setup" \
			-p topology=cluster "${warmup[@]}" -i "$MINUTES" -r "$INTERVAL" -prof gc -rf json \
			-rff "$RESULTS/jmh-steady-$setup.json" \
			-jvmArgsAppend "-Dlettuce.bench.side-file=$RESULTS/side-steady.jsonl -Dlettuce.bench.round=1 \
-Dlettuce.bench.quiet.max-wait=0" "${extra[@]}" 2>&1 | tee "$RESULTS/steady-$setup.log"
	done
fi

log "Summary"
{
	echo "# Steady run on a cluster"
	echo
	echo "Written $(date -u +%F) by \`benchmarks/scripts/steady.sh\` from the results in \`${RESULTS#"$ROOT"/}\`;"
	echo "benchmarks/README.md explains the run."
	echo
	python3 "$ROOT/benchmarks/scripts/summarize.py" --steady "$RESULTS"
} | tee "$RESULTS/steady.md"
