#!/usr/bin/env bash
# Paired rounds of PooledObjectBenchmark: one borrow and return through a commons-pool2 pool with the project's own
# pooled object (wrapper=own) against commons-pool2's DefaultPooledObject (wrapper=commons), at 1 and 2 threads,
# with -prof gc. Each round runs one fork of each wrapper, adjacent in time, in alternating order; the per-round
# ratios own/commons are the figures to read, since the level of a fork moves with the load of a shared machine.
#
# Usage: benchmarks/scripts/paired-pooled-object.sh [rounds]   (default 6, about 1.5 minutes per round)
# Output: benchmarks/results/paired-pooled-object/jmh-rNN.json (untracked) and summary.txt, also on standard output.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
JAR="${JAR:-$ROOT/benchmarks/target/lettuce-tuning-benchmarks.jar}"
OUT="$ROOT/benchmarks/results/paired-pooled-object"
ROUNDS="${1:-6}"
JAVA="${JAVA:-java}"

[[ -f "$JAR" ]] || (cd "$ROOT" && ./mvnw -B -q -DskipTests -pl benchmarks -am package)
mkdir -p "$OUT"
rm -f "$OUT"/jmh-r*.json
for round in $(seq 1 "$ROUNDS"); do
	if (( round % 2 )); then order="own,commons"; else order="commons,own"; fi
	echo "[paired-pooled-object $(date +%H:%M:%S)] round $round of $ROUNDS: $order"
	"$JAVA" -jar "$JAR" 'io.github.lettucetuning.connection.PooledObjectBenchmark' -p "wrapper=$order" -prof gc \
		-rf json -rff "$OUT/jmh-r$(printf %02d "$round").json" > /dev/null
done
python3 - "$OUT" <<'PY' | tee "$OUT/summary.txt"
import glob, json, statistics, sys
rounds = {}
for path in sorted(glob.glob(sys.argv[1] + "/jmh-r*.json")):
    for row in json.load(open(path)):
        key = (row["benchmark"].rsplit(".", 1)[1], row["params"]["wrapper"])
        alloc = row["secondaryMetrics"]["gc.alloc.rate.norm"]["score"]
        rounds.setdefault(path, {})[key] = (row["primaryMetric"]["score"], alloc)
for bench in sorted({b for r in rounds.values() for (b, _) in r}):
    ratios, own_ns, commons_ns, own_b, commons_b = [], [], [], [], []
    for r in rounds.values():
        own, commons = r[(bench, "own")], r[(bench, "commons")]
        ratios.append(own[0] / commons[0])
        own_ns.append(own[0]); commons_ns.append(commons[0]); own_b.append(own[1]); commons_b.append(commons[1])
    print(f"{bench}: {len(ratios)} rounds")
    print(f"  ns/op   own median {statistics.median(own_ns):.1f} (min {min(own_ns):.1f}, max {max(own_ns):.1f}),"
          f" commons median {statistics.median(commons_ns):.1f} (min {min(commons_ns):.1f}, max {max(commons_ns):.1f})")
    print(f"  time own/commons per round: " + " ".join(f"{x:.2f}" for x in ratios)
          + f"; median {statistics.median(ratios):.2f}, min {min(ratios):.2f}, max {max(ratios):.2f}")
    print(f"  B/op    own {statistics.median(own_b):.1f} (min {min(own_b):.1f}, max {max(own_b):.1f}),"
          f" commons {statistics.median(commons_b):.1f} (min {min(commons_b):.1f}, max {max(commons_b):.1f})")
PY
