#!/usr/bin/env bash
# Runs the end-to-end benchmark suite, as `make bench-modes` does: builds the benchmark jar, runs the mode benchmarks
# at 16 and 200 threads and the end-to-end timer benchmark in interleaved rounds (all with -prof gc and JSON results),
# then writes benchmarks/results/modes-summary.md with scripts/summarize.py (raw results beside it, untracked).
#
# Usage: benchmarks/scripts/run-all.sh [--quick] [--no-build] [--report-only]
#   --quick        a smoke run of about 6 minutes: SET at 200 threads only, short iterations, 2 timer rounds
#   --no-build     use the jar as built
#   --report-only  only rewrite the summary from the files in benchmarks/results
# Environment: JMH_ARGS is appended to every JMH command line (e.g. JMH_ARGS='-p setup=tuning-shared');
# TIMER_ROUNDS sets the number of timer rounds (one fork of each timer per round, default 3); VERDICT_ROUNDS the
# number of extra rounds of SET at 200 threads for the setups the targets compare (default 7); QUIET_MAX_WAIT how
# many seconds a measurement iteration may wait for other processes to go quiet (default 10, 0: never); JAVA picks
# the JVM.
#
# Every benchmark fork starts and stops its own redis-server (redis-server must be on the PATH); nothing else is
# started. The full run takes about 85 minutes on 2 cores.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

JAVA="${JAVA:-java}"
JAR="$ROOT/benchmarks/target/lettuce-tuning-benchmarks.jar"
RESULTS="$ROOT/benchmarks/results"
MODES="io.github.lettucetuning.benchmarks.modes.ModesBenchmark"
TIMER="io.github.lettucetuning.benchmarks.modes.TimerE2eBenchmark"

quick=false
build=true
benchmarks=true
for arg in "$@"; do
	case "$arg" in
		--quick) quick=true ;;
		--no-build) build=false ;;
		--report-only) build=false; benchmarks=false ;;
		*) echo "Unknown option $arg" >&2; exit 2 ;;
	esac
done

if $quick; then
	modes_selector="${MODES}.set"
	thread_counts=(200)
	iterations=(-wi 1 -w 2s -i 2 -r 2s)
	timer_rounds="${TIMER_ROUNDS:-2}"
	verdict_rounds="${VERDICT_ROUNDS:-0}"
else
	modes_selector="$MODES"
	thread_counts=(16 200)
	iterations=()
	timer_rounds="${TIMER_ROUNDS:-3}"
	verdict_rounds="${VERDICT_ROUNDS:-7}"
fi
# The setups the targets compare (SET, 200 threads) get extra rounds, 8 forks each in all: on 2 cores with 200
# threads, one fork of the same setup lands anywhere between about 60k and 100k SET/s as the machine drifts over
# minutes, for every setup alike. The verdicts therefore pair forks by round; the setups a target compares sit next
# to each other, and every other round runs them in reverse order, so neither side always goes first.
verdict_setups="boot-jedis-8,boot-jedis-50,tuning-multi-1x,tuning-multi-1x-affinity,tuning-multi-2x,tuning-shared,boot-lettuce-pool2,boot-lettuce-pool2-epoll,boot-lettuce-unshared-8,tuning-pooled-8"
# shellcheck disable=SC2206
extra=(${JMH_ARGS:-})

log() {
	echo "[run-all $(date +%H:%M:%S)] $*"
}

jmh() {
	local results_file="$1" side_file="$2" round="$3"
	shift 3
	"$JAVA" -jar "$JAR" "$@" "${iterations[@]}" -prof gc -rf json -rff "$results_file" \
		-jvmArgsAppend "-Dlettuce.bench.side-file=$side_file -Dlettuce.bench.round=$round \
-Dlettuce.bench.quiet.max-wait=${QUIET_MAX_WAIT:-10}" "${extra[@]}"
}

if $build; then
	log "Building $JAR"
	./mvnw -B -q -DskipTests -pl benchmarks -am package
fi

if $benchmarks; then
	mkdir -p "$RESULTS"
	rm -f "$RESULTS"/jmh-modes-*.json "$RESULTS"/jmh-timer-e2e-*.json "$RESULTS"/side-modes.jsonl \
		"$RESULTS"/side-timer-e2e.jsonl
	for threads in "${thread_counts[@]}"; do
		log "Mode benchmarks, $threads threads"
		jmh "$RESULTS/jmh-modes-t$threads.json" "$RESULTS/side-modes.jsonl" 0 "$modes_selector" -t "$threads"
	done
	for round in $(seq 2 $((verdict_rounds + 1))); do
		log "Target setups, SET at 200 threads, extra round $((round - 1)) of $verdict_rounds"
		setups="$verdict_setups"
		if (( round % 2 )); then setups="$(tr ',' '\n' <<< "$verdict_setups" | tac | paste -sd,)"; fi
		jmh "$RESULTS/jmh-modes-t200-r$(printf %02d "$round").json" "$RESULTS/side-modes.jsonl" "$round" \
			"${MODES}.set" -t 200 -f 1 -p "setup=$setups"
	done
	# One fork of each timer per round: drift of the machine over time hits all three alike.
	for round in $(seq 1 "$timer_rounds"); do
		log "Timer end-to-end benchmark, round $round of $timer_rounds"
		jmh "$RESULTS/jmh-timer-e2e-r$(printf %02d "$round").json" "$RESULTS/side-timer-e2e.jsonl" "$round" \
			"$TIMER" -f 1
	done
fi

# The comparisons the docs quote, paired by round; every setup's figures are in the tables.
pairs=(tuning-shared/boot-lettuce-pool2 tuning-shared/boot-lettuce-pool2-epoll tuning-multi-1x/boot-jedis-8
	tuning-multi-1x/tuning-shared tuning-multi-1x-affinity/boot-jedis-8 tuning-multi-1x-affinity/tuning-shared
	tuning-multi-2x/boot-jedis-8 tuning-multi-2x/tuning-shared wheel/netty off/netty)
log "Summary"
{
	echo "# Benchmark summary"
	echo
	echo "Written $(date -u +%F) by \`benchmarks/scripts/run-all.sh\` (\`make bench-modes\`) with \`benchmarks/scripts/summarize.py\`"
	echo "from the results in \`benchmarks/results/\`; docs/benchmarks/modes-suite.md explains the columns."
	echo
	python3 "$ROOT/benchmarks/scripts/summarize.py" "${pairs[@]/#/--pair=}" "$RESULTS"
} > "$RESULTS/modes-summary.md"
log "Wrote $RESULTS/modes-summary.md"
