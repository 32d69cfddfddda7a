#!/usr/bin/env bash
# Paired rounds for the outage guard's cost on the hot path: lettuce-tuning's default mode, the same without the
# guard (tuning-shared-unguarded: no fail-fast, no stall detection, Lettuce's unbounded request queue) and stock
# Spring Boot with commons-pool2. SET through StringRedisTemplate at 200 threads, one fork of each per round,
# adjacent in time, the order rotated every round; the per-round ratios are the figures to read (see
# paired-shared-vs-stock.sh for why).
#
# Usage: benchmarks/scripts/paired-guard.sh [rounds]   (default 3, about 2.5 minutes per round)
# Output: benchmarks/results/paired-guard/ JSON and side.jsonl (untracked), and summary.txt, also on standard output.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
JAR="${JAR:-$ROOT/benchmarks/target/lettuce-tuning-benchmarks.jar}"
OUT="$ROOT/benchmarks/results/paired-guard"
ROUNDS="${1:-3}"
JAVA="${JAVA:-java}"
SETUPS=(tuning-shared tuning-shared-unguarded boot-lettuce-pool2)

[[ -f "$JAR" ]] || (cd "$ROOT" && ./mvnw -B -q -DskipTests -pl benchmarks -am package)
mkdir -p "$OUT"
rm -f "$OUT"/jmh-r*.json "$OUT"/side.jsonl
for round in $(seq 1 "$ROUNDS"); do
	shift_by=$(( (round - 1) % ${#SETUPS[@]} ))
	order=("${SETUPS[@]:$shift_by}" "${SETUPS[@]:0:$shift_by}")
	for setup in "${order[@]}"; do
		echo "[paired-guard $(date +%H:%M:%S)] round $round of $ROUNDS: $setup"
		"$JAVA" -jar "$JAR" 'io.github.lettucetuning.benchmarks.modes.ModesBenchmark.set$' -t 200 -f 1 -wi 3 -w 5s \
			-i 4 -r 5s -p "setup=$setup" -rf json -rff "$OUT/jmh-r$(printf %02d "$round")-$setup.json" \
			-jvmArgsAppend "-Dlettuce.bench.side-file=$OUT/side.jsonl -Dlettuce.bench.round=$round" > /dev/null
	done
done
python3 "$ROOT/benchmarks/scripts/summarize.py" --pair tuning-shared/tuning-shared-unguarded \
	--pair tuning-shared/boot-lettuce-pool2 "$OUT/side.jsonl" | tee "$OUT/summary.txt"
