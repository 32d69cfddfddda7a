#!/usr/bin/env bash
# Paired rounds of lettuce-tuning's default mode against stock Spring Boot with commons-pool2: SET through
# StringRedisTemplate at 200 threads, one fork of each per round, adjacent in time, in alternating order, with
# longer warm-ups (5 x 5 s) than the main suite.
#
# Why: on 2 cores with 200 threads the level of a fork moves with the machine over minutes (rounds of this script
# ranged from about 60k to 90k SET/s for both setups alike), which swamps a 5-10% difference between setups
# measured minutes apart. Within a round, the two forks see the same machine, so the per-round ratio is the figure
# to read.
#
# Usage: benchmarks/scripts/paired-shared-vs-stock.sh [rounds]   (default 8, about 2 minutes per round)
# Output: benchmarks/results/paired/jmh-rNN.json and side.jsonl (untracked), and summary.txt, also on standard output.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
JAR="${JAR:-$ROOT/benchmarks/target/lettuce-tuning-benchmarks.jar}"
OUT="$ROOT/benchmarks/results/paired"
ROUNDS="${1:-8}"
JAVA="${JAVA:-java}"

[[ -f "$JAR" ]] || (cd "$ROOT" && ./mvnw -B -q -DskipTests -pl benchmarks -am package)
mkdir -p "$OUT"
rm -f "$OUT"/jmh-r*.json "$OUT"/side.jsonl
for round in $(seq 1 "$ROUNDS"); do
	if (( round % 2 )); then order="tuning-shared,boot-lettuce-pool2"; else order="boot-lettuce-pool2,tuning-shared"; fi
	echo "[paired $(date +%H:%M:%S)] round $round of $ROUNDS: $order"
	"$JAVA" -jar "$JAR" 'io.github.lettucetuning.benchmarks.modes.ModesBenchmark.set$' -t 200 -f 1 -wi 5 -w 5s -i 5 \
		-r 5s -p "setup=$order" -rf json -rff "$OUT/jmh-r$(printf %02d "$round").json" \
		-jvmArgsAppend "-Dlettuce.bench.side-file=$OUT/side.jsonl -Dlettuce.bench.round=$round" > /dev/null
done
python3 "$ROOT/benchmarks/scripts/summarize.py" --pair tuning-shared/boot-lettuce-pool2 "$OUT/side.jsonl" \
	| tee "$OUT/summary.txt"
