#!/usr/bin/env bash
# Runs MatrixBenchmark, the matrix of issue 17, in paired rounds: each round runs every cell (a workload at a thread
# count) for stock Spring Boot, lettuce-tuning's default mode and its multi mode, one fork each, back to back, in the
# order stock, default, multi in odd rounds and multi, default, stock in even ones, so neither side always goes first.
# Every cell is closed-loop but openloop at 16 threads: SETs at a fixed total rate, latencies from when each was due.
# The cluster cells (SET, GET and 80/20 at 16 and 200 threads) run against a Redis Cluster of 3 masters with one
# replica each instead of one redis-server, each fork its own, the applications configured with
# spring.data.redis.cluster.nodes; the masters count the commands. Then it prints the summary of scripts/summarize.py --matrix and writes it to the results directory.
#
# Usage: benchmarks/scripts/matrix.sh [--quick] [--no-build] [--report-only] [ROUNDS]
#   --quick        the headline cells only (SET and 80/20 GET/SET at 16 and 200 threads, GET at 200, reactive at 1,
#                  open loop at 16, and 80/20 on the cluster at 200), with short iterations, 3 rounds unless ROUNDS
#                  says otherwise
#   --no-build     use the jar as built
#   --report-only  only print the summary of the results already in the results directory
#   ROUNDS         number of rounds (default 5; --quick 3)
# Environment: CELLS replaces the cells, e.g. CELLS='16:set 200:set|mget' (threads:workloads, | between workloads);
# a workload prefixed cluster- runs on the cluster (CELLS='16:cluster-set|cluster-mix': -p topology=cluster), and a
# cell's workloads must all be on one topology;
# ITERATIONS replaces the warm-up and measurement options of every cell (e.g. '-wi 0 -i 1 -r 2s'); JMH_ARGS is
# appended to every JMH command line (not for iterations: JMH refuses an option given twice); JVM options
# go in its -jvmArgsPrepend, not -jvmArgsAppend, which the script passes already (given twice, JMH would keep each
# value as one JVM argument, unsplit);
# OPEN_LOOP_RATE the openloop cell's total rate in operations per second over all threads (default 10000);
# QUIET_MAX_WAIT how many seconds a measurement iteration may wait for other processes to go quiet (default 10,
# 0: never); SETUPS replaces stock,default,multi, adding any setup of ClientSetups to split a difference (e.g.
# SETUPS=stock,default,tuning-shared-unmerged; the ratios need stock among them); RESULTS the results directory
# (default benchmarks/results/matrix); JAVA picks the JVM, JAVA_OPTS adds options to the JMH host JVM (e.g.
# -Djmh.ignoreLock=true for a smoke run next to another JMH run); MAVEN_ARGS, which Maven reads itself, adds options
# to the build (e.g. MAVEN_ARGS='-o -Dmaven.repo.local=...'). The virtual workload (200 virtual threads calling, at -t 1)
# needs JDK 21 or later and is in no default cell: JAVA=<JDK 21+ java> CELLS='1:virtual 200:set' compares it with
# 200 platform threads. The near-cache cells (cacheable95, cacheable99, cacheable100: @Cacheable reads of 1,000 keys
# of 1 KB, 95, 99 or 100 in 100 hits; cachewrite: @CachePut or @CacheEvict) are in no default cell either; they need
# the near-cache setup: SETUPS=stock,default,tuning-near-cache CELLS='16:cacheable95|cacheable99|cacheable100|cachewrite
# 200:cacheable95|cacheable99|cacheable100|cachewrite' (3 rounds: 72 forks of about 25 s, about 30 minutes); the
# setup tuning-map-cache (Spring's in-memory map in place of Redis) gives cacheable100 its ceiling:
# SETUPS=stock,tuning-map-cache CELLS='16:cacheable100 200:cacheable100'.
#
# Durations on 2 cores (a fork costs about 7 s beyond its iterations: JVM, redis-server, 10,000 keys, the Spring
# application, 200 threads to start and stop; more if other processes keep QUIET_MAX_WAIT waiting; a cluster fork
# about 6 s more: 18 smoke forks of the cluster cells took 20.1 s each against 13.7 s for the same cells standalone,
# on a machine busy with other builds, the six nodes, the cluster's creation and the keys 2.9 to 5.8 s of it):
#   full:   21 standalone cells (7 workloads at 1 and 16 threads, all but reactive at 200, open loop at 16) x 3 setups
#           x 5 rounds = 315 forks x (1 x 3 s warmup + 2 x 3 s measurement + 7 s) = 315 x 16 s, plus 6 s more warm-up
#           in each of the 15 open-loop forks, about 87 minutes; then 6 cluster cells (3 workloads at 16 and 200
#           threads) x 3 setups x 5 rounds = 90 forks x (16 s + 6 s), about 33 minutes: about 120 minutes in all. The
#           paired rounds, not long forks, carry the comparison (2 x 3 s warmup and 3 x 3 s measurement: about 155
#           minutes)
#   --quick: 7 standalone cells x 3 setups x 3 rounds = 63 forks x (1 x 2 s warmup + 2 x 2 s measurement + 7 s) =
#           63 x 13 s, plus 4 s more warm-up in each of the 9 open-loop forks, about 14 minutes, and 1 cluster cell x
#           3 setups x 3 rounds = 9 forks x (13 s + 6 s), about 3 minutes: about 17 minutes (a fork of SET at 200
#           threads took 16.5 s on a machine busy with builds: 21 minutes)
# Every fork starts and stops its own redis-server, or the six of its cluster (redis-server and, for the cluster,
# redis-cli must be on the PATH); nothing else is started.
# Output: JMH JSON per round and cell (jmh-matrix-cC-tT-rNN.json) and the harness's side file
# (side-matrix.jsonl), both untracked, and summary.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

JAVA="${JAVA:-java}"
JAR="$ROOT/benchmarks/target/lettuce-tuning-benchmarks.jar"
RESULTS="${RESULTS:-$ROOT/benchmarks/results/matrix}"
MATRIX="io.github.lettucetuning.benchmarks.modes.MatrixBenchmark"
SETUPS="${SETUPS:-stock,default,multi}"

quick=false
build=true
benchmarks=true
rounds=""
for arg in "$@"; do
	case "$arg" in
		--quick) quick=true ;;
		--no-build) build=false ;;
		--report-only) build=false; benchmarks=false ;;
		[0-9]*) rounds="$arg" ;;
		*) echo "Unknown option $arg" >&2; exit 2 ;;
	esac
done

# Cells as "threads:workload|workload...": one JMH launch per cell and round runs its workloads, and JMH
# runs the setups of one workload next to each other, in the order -p gives them.
# The open-loop cell warms up three times as long: at 10,000 operations a second, one warm-up iteration runs a
# fifth of the operations a closed-loop cell does. Its first measurement iteration's p99 came out about twice the
# second's on every side; it still does with the longer warm-up, so the JIT is not the whole cause
# (docs/benchmarks/results.md, "Earlier runs of the same cells").
if $quick; then
	cells=("1:reactive" "16:set|mix" "16:openloop" "200:set|mix|get" "200:cluster-mix")
	warmup=(-wi 1 -w 2s)
	open_loop_warmup=(-wi 3 -w 2s)
	measurement=(-i 2 -r 2s)
	rounds="${rounds:-3}"
else
	# No reactive cell at 200 threads: 200 x 1,000 operations in flight queue for longer than the 2 s command
	# timeout at any rate under 100k/s, so it would measure timeouts, not the client.
	all="set|get|mix|large|mget|pipelined"
	# The cluster section: SET, GET and 80/20 on a 3-master, 3-replica cluster, each fork its own.
	on_cluster="cluster-set|cluster-get|cluster-mix"
	cells=("1:$all|reactive" "16:$all|reactive" "16:openloop" "200:$all" "16:$on_cluster" "200:$on_cluster")
	warmup=(-wi 1 -w 3s)
	open_loop_warmup=(-wi 3 -w 3s)
	measurement=(-i 2 -r 3s)
	rounds="${rounds:-5}"
fi
# The near-cache cells warm up four times as long: a hit through Spring's caching proxy is a deep call chain that
# the JIT compiles late when 16 or 200 threads keep both cores busy. With one 3 s warm-up iteration, the near
# cache's second measurement iteration read up to twice its first; after 3 x 4 s, the iterations agree. Every
# setup of a cell gets the same warm-up.
cache_warmup=(-wi 3 -w 4s)
if [[ -n "${ITERATIONS:-}" ]]; then
	read -ra warmup <<< "$ITERATIONS"
	open_loop_warmup=("${warmup[@]}")
	cache_warmup=("${warmup[@]}")
	measurement=()
fi
if [[ -n "${CELLS:-}" ]]; then
	read -ra cells <<< "$CELLS"
fi
# shellcheck disable=SC2206
extra=(${JMH_ARGS:-})
# shellcheck disable=SC2206
java_opts=(${JAVA_OPTS:-})
open_loop="${OPEN_LOOP_RATE:+ -Dlettuce.bench.open-loop.rate=$OPEN_LOOP_RATE}"

log() {
	echo "[matrix $(date +%H:%M:%S)] $*"
}

if $build; then
	log "Building $JAR"
	./mvnw -B -q -DskipTests -pl benchmarks -am package
fi

if $benchmarks; then
	mkdir -p "$RESULTS"
	rm -f "$RESULTS"/jmh-matrix-*.json "$RESULTS"/side-matrix.jsonl
	for round in $(seq 1 "$rounds"); do
		setups="$SETUPS"
		if (( round % 2 == 0 )); then setups="$(tr ',' '\n' <<< "$SETUPS" | tac | paste -sd,)"; fi
		for index in "${!cells[@]}"; do
			cell="${cells[$index]}"
			threads="${cell%%:*}"
			workloads="${cell#*:}"
			# cluster-set|cluster-mix: the methods set and mix with -p topology=cluster
			IFS='|' read -ra names <<< "$workloads"
			clustered=0
			for name in "${names[@]}"; do
				if [[ "$name" == cluster-* ]]; then clustered=$((clustered + 1)); fi
			done
			topology=standalone
			if (( clustered == ${#names[@]} )); then
				topology=cluster
				workloads="${workloads//cluster-/}"
			elif (( clustered > 0 )); then
				echo "Cell $cell mixes cluster and standalone workloads: give each topology a cell of its own" >&2
				exit 2
			fi
			cell_warmup=("${warmup[@]}")
			if [[ "$workloads" == openloop ]]; then cell_warmup=("${open_loop_warmup[@]}"); fi
			if [[ "$workloads" =~ ^cache[a-z0-9]*(\|cache[a-z0-9]*)*$ ]]; then cell_warmup=("${cache_warmup[@]}"); fi
			log "Round $round of $rounds, $threads threads: $workloads on $topology ($setups)"
			"$JAVA" "${java_opts[@]}" -jar "$JAR" "${MATRIX}\.($workloads)\$" -t "$threads" -f 1 \
				-p "setup=$setups" -p "topology=$topology" \
				"${cell_warmup[@]}" "${measurement[@]}" -prof gc -rf json \
				-rff "$RESULTS/jmh-matrix-c$index-t$threads-r$(printf %02d "$round").json" \
				-jvmArgsAppend "-Dlettuce.bench.side-file=$RESULTS/side-matrix.jsonl -Dlettuce.bench.round=$round \
-Dlettuce.bench.quiet.max-wait=${QUIET_MAX_WAIT:-10}$open_loop" "${extra[@]}"
		done
	done
fi

log "Summary"
{
	echo "# Matrix summary"
	echo
	echo "Written $(date -u +%F) by \`benchmarks/scripts/matrix.sh\` from the results in \`${RESULTS#"$ROOT"/}\`;"
	echo "benchmarks/README.md explains the columns."
	echo
	python3 "$ROOT/benchmarks/scripts/summarize.py" --matrix "$RESULTS"
} | tee "$RESULTS/summary.md"
