#!/usr/bin/env python3
"""Summarise a benchmark run: JMH's JSON results (jmh-*.json) and the harness's side files (side-*.jsonl).

Prints Markdown: per benchmark and thread count, one row per setup with the server-counted rate (median and
[min-max]: over the measurement iterations of a single fork, over the fork means when there are several), its
ratio to a baseline setup, the harness's cost figures and JMH's own score and gc.alloc.rate.norm; then, for each
--pair A/B, the ratio of A to B round by round (forks of the same round ran back to back, so they saw the same
machine), its median, A's wins and the one-sided sign-test probability of that many wins by chance.

With --matrix (the results of scripts/matrix.sh), one table instead: per cell (workload and thread count) and
setup, the server-counted rate, the default and multi modes' ratio to stock paired by round (median [min-max],
rounds won), latency percentiles and their p99 ratio to stock, and client and server CPU per command; below it, for
the open-loop cell, the target rate and how far each setup fell behind its schedule.

With --steady (the results of scripts/steady.sh), the server-counted rate of each interval (a minute by default) per
setup, then per setup the first and last interval, their ratio, the lowest and highest interval, and p99 and client CPU
per command in the first and last interval.

MatrixBenchmark's cluster cells (-p topology=cluster) are named cluster-set, cluster-get, cluster-mix, and --matrix
prints them in a table of their own. So are its near-cache cells (cacheable95, cacheable99, cacheable100, cachewrite), whose hits
send no command: their rate is the operations the callers made (one latency recorded each), their ratios are paired
with stock and with default, and their costs are per operation.

Usage: summarize.py [--baseline SETUP ...] [--pair A/B ...] [--matrix | --steady] FILE_OR_DIRECTORY...
Iterations during which other processes used more than 0.25 cores are left out when their fork has quieter ones.
"""
import argparse
import json
import math
import pathlib
import statistics
import sys
from collections import defaultdict

DISTURBED_CORES = 0.25
COST = [("client µs/op", "clientCpuUsPerOp", 1), ("redis µs/op", "serverCpuUsPerOp", 2),
        ("cmds/read", "commandsPerRead", 1), ("event-loop µs/op", "eventLoopCpuUsPerOp", 1),
        ("sleeps/kop", "eventLoopSleepsPerKOp", 0)]


def key_of(benchmark, params, threads):
    """(Class.method, threads, params): MatrixBenchmark's topology goes into the method, cluster-set for set on a
    cluster, so that the params name the setup alone."""
    params = dict(params)
    method = benchmark.rsplit(".", 1)[-1]
    if params.pop("topology", "standalone") == "cluster":
        method = "cluster-" + method
    return benchmark.rsplit(".", 2)[-2] + "." + method, threads, ",".join(params.values())


def spread(values):
    values = sorted(v for v in values if v is not None and not math.isnan(v))
    return (statistics.median(values), values[0], values[-1]) if values else None


def level(forks, metric=None):
    """Median [min, max] over iterations of one fork, over fork means of several."""
    forks = [[r[metric] for r in fork] if metric else fork for fork in forks]
    if len(forks) == 1:
        return spread(forks[0])
    return spread([statistics.fmean(fork) for fork in forks])


def read(paths):
    files = []
    for path in map(pathlib.Path, paths):
        files += sorted(path.glob("jmh-*.json")) + sorted(path.glob("side*.jsonl")) if path.is_dir() else [path]
    side, jmh = defaultdict(lambda: defaultdict(list)), defaultdict(lambda: {"ops": [], "bytes": [], "err": []})
    for file in files:
        if file.suffix == ".jsonl":
            for line in file.read_text().splitlines():
                record = json.loads(line)
                if record.get("kind", "measurement") == "measurement":
                    key = key_of(record["benchmark"], record["params"], record["threads"])
                    side[key][record["fork"]].append(record)
        else:
            for entry in json.loads(file.read_text()):
                key = key_of(entry["benchmark"], entry.get("params", {}), entry["threads"])
                jmh[key]["ops"] += entry["primaryMetric"]["rawData"]
                jmh[key]["err"].append((float(entry["primaryMetric"]["score"]), float(entry["primaryMetric"]["scoreError"])))
                jmh[key]["unit"] = entry["primaryMetric"]["scoreUnit"]
                for name, metric in entry.get("secondaryMetrics", {}).items():
                    if not name.startswith("gc."):  # the methods of a @Group benchmark
                        part = jmh[(key[0] + ":" + name, key[1], key[2])]
                        part["err"].append((float(metric["score"]), float(metric["scoreError"])))
                        part["unit"] = metric["scoreUnit"]
                norm = entry.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
                if norm:
                    jmh[key]["bytes"] += norm["rawData"]
    rows = {}
    for key, by_fork in side.items():
        ordered = sorted(by_fork.values(), key=lambda fork: (fork[0].get("round", 0), int(fork[0]["fork"].split("-")[-1])))
        forks, rounds, dropped = [], [], 0
        for index, fork in enumerate(ordered):
            quiet = [r for r in fork if not r.get("otherCpuCores", 0) > DISTURBED_CORES] or fork
            dropped += len(fork) - len(quiet)
            forks.append(quiet)
            rounds.append(fork[0].get("round", 0) or index + 1)
        rows[key] = {"forks": forks, "rounds": rounds, "dropped": dropped}
    return rows, jmh


def fmt(value, digits=1, scale=1.0):
    return "-" if value is None or math.isnan(value) else f"{value / scale:.{digits}f}"


def by_round(row):
    return {r: statistics.fmean(x["serverOpsPerSec"] for x in fork) for r, fork in zip(row["rounds"], row["forks"])}


def sign_test(wins, rounds):
    return sum(math.comb(rounds, k) for k in range(wins, rounds + 1)) / 2 ** rounds


MATRIX_SETUPS = ("stock", "default", "multi")
MATRIX_WORKLOADS = ("set", "get", "mix", "large", "mget", "pipelined", "reactive", "openloop", "virtual",
                    "cluster-set", "cluster-get", "cluster-mix", "cacheable95", "cacheable99", "cacheable100",
                    "cachewrite")
# MatrixBenchmark.VIRTUAL_CALLERS: the virtual cell runs at 1 JMH thread, which starts that many callers.
VIRTUAL_CALLERS = 200


def cell_label(benchmark, threads):
    workload = benchmark.split(".")[1]
    if workload == "virtual":
        return f"{workload}, {VIRTUAL_CALLERS} virtual threads"
    return f"{workload}, {threads} threads"


def per_round(row, field):
    """The fork mean of a field per round, for the forks that recorded it."""
    means = {}
    for r, fork in zip(row["rounds"], row["forks"]):
        values = [x[field] for x in fork if x.get(field) is not None]
        if values:
            means[r] = statistics.fmean(values)
    return means


def paired(row, base, field):
    """Ratios of row to base in each round both ran."""
    a, b = per_round(row, field), per_round(base, field)
    return [a[r] / b[r] for r in sorted(set(a) & set(b)) if b[r]]


FIELDS = ("p50Us", "p99Us", "p999Us", "clientCpuUsPerOp", "serverCpuUsPerOp")


def figure(row, field):
    """The median of a side-file field as level() takes it; None where some iteration lacks it."""
    if not all(field in record for fork in row["forks"] for record in fork):
        return None
    return level(row["forks"], field)[0]


def matrix_setups(rows):
    """stock, default and multi first, then any other setup a diagnostic run (SETUPS=...) or the near-cache cells
    added."""
    present = {key[2] for key in rows if key[0].startswith("MatrixBenchmark.")}
    return [s for s in MATRIX_SETUPS if s in present] + sorted(present - set(MATRIX_SETUPS))


def is_cluster(cell):
    return cell[0].split(".")[1].startswith("cluster-")


def is_cache(cell):
    return cell[0].split(".")[1].startswith("cache")


def matrix(rows):
    """One row per cell and setup of MatrixBenchmark, the modes against stock paired by round; the cluster cells in a
    table of their own."""
    cells = sorted({(key[0], key[1]) for key in rows if key[0].startswith("MatrixBenchmark.")},
                   key=lambda cell: (MATRIX_WORKLOADS.index(cell[0].split(".")[1])
                                     if cell[0].split(".")[1] in MATRIX_WORKLOADS else 99, cell[1]))
    standalone = [cell for cell in cells if not is_cluster(cell) and not is_cache(cell)]
    cluster = [cell for cell in cells if is_cluster(cell)]
    cache = [cell for cell in cells if is_cache(cell)]
    if standalone:
        matrix_table(rows, standalone)
    if cluster:
        if standalone:
            print()
        print("Cluster cells: 3 masters with one replica each, every fork its own cluster; server k/s counts the "
              "masters' commands, redis µs/cmd the CPU time of all six nodes per command.\n")
        matrix_table(rows, cluster)
    if cache:
        if standalone or cluster:
            print()
        cache_table(rows, cache)
    open_loop(rows, standalone)


def paired_ratio(row, base, field):
    """'median [min-max]' of row over base paired by round, with the rounds row was ahead; '-' without pairs."""
    if not base or base is row:
        return "-", "-"
    ratios = paired(row, base, field)
    if not ratios:
        return "-", "-"
    wins = sum(x > 1 for x in ratios)
    return (f"{statistics.median(ratios):.2f}x [{min(ratios):.2f}-{max(ratios):.2f}]",
            f"{wins} of {len(ratios)} (p={sign_test(wins, len(ratios)):.3f})")


CACHE_FIELDS = ("commandsPerClientOp", "p50Us", "p99Us", "p999Us", "clientCpuUsPerClientOp", "serverCpuUsPerClientOp")


def cache_table(rows, cells):
    """The near-cache cells: Spring Cache reads (95, 99 or 100 hits in 100) and writes (put or evict), counted as the
    operations the callers made, since a near-cache hit sends no command; paired with stock and with default, the
    starter without the near cache."""
    print("Near-cache cells: Spring Cache over Boot's RedisCacheManager, 1,000 keys of 1 KB; ops k/s counts the "
          "callers' operations (a hit on the near cache sends no command), cmds/op the commands Redis got per "
          "operation, the costs are per operation.\n")
    print("| Cell | setup | rounds | ops k/s | vs stock, paired | vs default, paired | rounds won vs default (sign test) "
          "| cmds/op | p50 µs | p99 µs | p99.9 µs | client µs/op | redis µs/op | dropped |")
    print("|---" * 14 + "|")
    for benchmark, threads in cells:
        stock = rows.get((benchmark, threads, "stock"))
        default = rows.get((benchmark, threads, "default"))
        for setup in matrix_setups(rows):
            row = rows.get((benchmark, threads, setup))
            if not row or figure(row, "clientOpsPerSec") is None:
                continue
            rate = level(row["forks"], "clientOpsPerSec")
            vs_stock, _ = paired_ratio(row, stock, "clientOpsPerSec")
            vs_default, won = paired_ratio(row, default if setup != "stock" else None, "clientOpsPerSec")
            per_op, p50, p99, p999, client, server = (figure(row, field) for field in CACHE_FIELDS)
            print(f"| {cell_label(benchmark, threads)} | `{setup}` | {len(row['forks'])} | "
                  f"{rate[0] / 1000:.1f}k [{rate[1] / 1000:.1f}-{rate[2] / 1000:.1f}] | {vs_stock} | {vs_default} | "
                  f"{won} | {fmt(per_op, 3)} | {fmt(p50, 0)} | {fmt(p99, 0)} | {fmt(p999, 0)} | {fmt(client, 1)} | "
                  f"{fmt(server, 2)} | {row['dropped']} |")


def matrix_table(rows, cells):
    print("| Cell | setup | rounds | server k/s | vs stock, paired median [min-max] | rounds won (sign test) "
          "| p50 µs | p99 µs | p99.9 µs | p99 vs stock (paired) | client µs/cmd | redis µs/cmd | dropped |")
    print("|---" * 13 + "|")
    for benchmark, threads in cells:
        base = rows.get((benchmark, threads, "stock"))
        for setup in matrix_setups(rows):
            row = rows.get((benchmark, threads, setup))
            if not row:
                continue
            rate = level(row["forks"], "serverOpsPerSec")
            ratio, won, p99_ratio = "-", "-", "-"
            if base and setup != "stock":
                ratios = paired(row, base, "serverOpsPerSec")
                if ratios:
                    wins = sum(x > 1 for x in ratios)
                    ratio = f"{statistics.median(ratios):.2f}x [{min(ratios):.2f}-{max(ratios):.2f}]"
                    won = f"{wins} of {len(ratios)} (p={sign_test(wins, len(ratios)):.3f})"
                ratios = paired(row, base, "p99Us")
                if ratios:
                    lower = sum(x < 1 for x in ratios)
                    p99_ratio = (f"{statistics.median(ratios):.2f}x [{min(ratios):.2f}-{max(ratios):.2f}], "
                                 f"lower in {lower} of {len(ratios)}")
            p50, p99, p999, client, server = (figure(row, field) for field in FIELDS)
            print(f"| {cell_label(benchmark, threads)} | `{setup}` | {len(row['forks'])} | "
                  f"{rate[0] / 1000:.1f}k [{rate[1] / 1000:.1f}-{rate[2] / 1000:.1f}] | {ratio} | {won} | "
                  f"{fmt(p50, 0)} | {fmt(p99, 0)} | {fmt(p999, 0)} | {p99_ratio} | {fmt(client, 1)} | "
                  f"{fmt(server, 2)} | {row['dropped']} |")


def open_loop(rows, cells):
    """The schedule of the open-loop cells: a setup that keeps up issues at the target rate with few late operations,
    one that cannot falls further behind through each iteration."""
    keys = [(benchmark, threads, setup) for benchmark, threads in cells for setup in matrix_setups(rows)]
    scheduled = [key for key in keys if key in rows and figure(rows[key], "intervalUs") is not None]
    if not scheduled:
        return
    print("\nOpen loop: latencies count from when each operation was due, not from when it was issued. Late: "
          "operations issued after the thread's next one was due, median share over the fork means; worst lag: the "
          "longest any operation was issued past its due time, over all iterations.\n")
    print("| Cell | setup | target k/s | server k/s | late | worst lag µs |")
    print("|---" * 6 + "|")
    for benchmark, threads, setup in scheduled:
        row = rows[(benchmark, threads, setup)]
        forks = row["forks"]
        target = threads / figure(row, "intervalUs") * 1e3
        late = level([[r["lateCount"] / r["latencyCount"] for r in fork] for fork in forks])[0]
        lag = max(r["maxLagUs"] for fork in forks for r in fork)
        rate = level(forks, "serverOpsPerSec")[0]
        print(f"| {cell_label(benchmark, threads)} | `{setup}` | {target:.1f}k | {rate / 1000:.1f}k | "
              f"{late:.2%} | {lag:,.0f} |")


def steady(paths):
    """The steady run of scripts/steady.sh: one fork per setup, each measurement iteration one interval (a minute by
    default); the server-counted rate per interval side by side, then per setup the last interval over the first."""
    forks = defaultdict(list)
    for path in map(pathlib.Path, paths):
        for file in sorted(path.glob("side*.jsonl")) if path.is_dir() else [path]:
            for line in file.read_text().splitlines():
                record = json.loads(line)
                if record.get("kind") == "measurement":
                    forks[(record["params"].get("setup", ""), record["fork"])].append(record)
    if not forks:
        sys.exit("no steady-run records in " + " ".join(paths))
    runs = {}
    for (setup, fork), records in sorted(forks.items(), key=lambda item: int(item[0][1].split("-")[-1])):
        runs[setup] = sorted(records, key=lambda r: r["iteration"])  # a later fork of a setup replaces an earlier
    setups = [s for s in MATRIX_SETUPS if s in runs] + sorted(set(runs) - set(MATRIX_SETUPS))
    first = runs[setups[0]][0]
    seconds = statistics.median(r["seconds"] for run in runs.values() for r in run)
    print(f"{first['benchmark'].rsplit('.', 1)[-1]} at {first['threads']} threads, "
          f"topology {first['params'].get('topology', 'standalone')}; one fork per setup, the setups one after "
          f"another (not simultaneously); intervals of {seconds:.0f} s. Server k/s: SET and GET counted by the "
          f"masters over each interval. *: other processes used more than {DISTURBED_CORES} cores in that "
          f"interval.\n")
    print("| Interval | " + " | ".join(f"`{setup}` k/s" for setup in setups) + " |")
    print("|---" * (1 + len(setups)) + "|")
    for index in range(max(len(run) for run in runs.values())):
        cells = []
        for setup in setups:
            run = runs[setup]
            if index < len(run):
                record = run[index]
                mark = "*" if record.get("otherCpuCores", 0) > DISTURBED_CORES else ""
                cells.append(f"{record['serverOpsPerSec'] / 1000:.1f}{mark}")
            else:
                cells.append("-")
        print(f"| {index + 1} ({index * seconds:.0f}-{(index + 1) * seconds:.0f} s) | " + " | ".join(cells) + " |")
    print()
    print("| Setup | intervals | first k/s | last k/s | last / first | lowest k/s (interval) | highest k/s (interval) "
          "| p99 µs first → last | client µs/cmd first → last | other processes, max cores |")
    print("|---" * 10 + "|")
    for setup in setups:
        run = runs[setup]
        rates = [r["serverOpsPerSec"] for r in run]
        low, high = rates.index(min(rates)), rates.index(max(rates))
        p99 = f"{fmt(run[0].get('p99Us'), 0)} → {fmt(run[-1].get('p99Us'), 0)}"
        client = f"{fmt(run[0].get('clientCpuUsPerOp'), 1)} → {fmt(run[-1].get('clientCpuUsPerOp'), 1)}"
        others = max(r.get("otherCpuCores", 0) for r in run)
        print(f"| `{setup}` | {len(run)} | {rates[0] / 1000:.1f}k | {rates[-1] / 1000:.1f}k | "
              f"{rates[-1] / rates[0]:.2f}x | {rates[low] / 1000:.1f}k ({low + 1}) | {rates[high] / 1000:.1f}k "
              f"({high + 1}) | {p99} | {client} | {others:.2f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", action="append", help="setup the ratios are taken to, the first one a group "
                        "has (default: boot-lettuce-pool2, then netty)")
    parser.add_argument("--pair", action="append", default=[], help="A/B: A against B, paired by round")
    parser.add_argument("--matrix", action="store_true", help="the MatrixBenchmark table of scripts/matrix.sh")
    parser.add_argument("--steady", action="store_true", help="the per-interval table of scripts/steady.sh")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    if args.steady:
        steady(args.paths)
        return
    baselines = args.baseline or ["boot-lettuce-pool2", "netty"]
    rows, jmh = read(args.paths)
    if not rows and not jmh:
        sys.exit("no results in " + " ".join(args.paths))
    if args.matrix:
        matrix(rows)
        return
    jmh_only = [key for key in jmh if key not in rows]
    if jmh_only:
        # Benchmarks without side-file records (the timer microbenchmarks): JMH's own figures.
        print("| Benchmark | threads | params | score ± error | unit | B/op (gc.alloc.rate.norm) |")
        print("|---|---|---|---|---|---|")
        for key in sorted(jmh_only):
            (score, error), = jmh[key]["err"][-1:]
            alloc = level(jmh[key]["bytes"]) if jmh[key]["bytes"] else None
            error = "" if math.isnan(error) else f" ± {error:,.0f}"
            print(f"| {key[0]} | {key[1]} | {key[2] or '-'} | {score:,.0f}{error} | {jmh[key]['unit']} | "
                  f"{fmt(alloc and alloc[0], 1)} |")
        print()
    groups = defaultdict(list)
    for key in rows:
        groups[key[:2]].append(key)
    for (benchmark, threads), keys in sorted(groups.items()):
        baseline = next((name for name in baselines if (benchmark, threads, name) in rows), None)
        base_level = level(rows[(benchmark, threads, baseline)]["forks"], "serverOpsPerSec") if baseline else None
        print(f"## {benchmark}, {threads} threads\n")
        print(f"| Setup | forks | server k/s, median [min-max] | vs {baseline or '-'} | JMH k/s | "
              + " | ".join(name for name, _, _ in COST) + " | B/op (JMH) | dropped |")
        print("|---" * (7 + len(COST)) + "|")
        for key in keys:
            row, scores = rows[key], jmh.get(key, {"ops": [], "bytes": [], "err": []})
            median, low, high = level(row["forks"], "serverOpsPerSec")
            ratio = f"{median / base_level[0]:.2f}x" if base_level else "-"
            ops = level(scores["ops"]) if scores["ops"] else None
            score = fmt(ops and ops[0], 1, 1000)
            if len(scores["err"]) == 1 and not math.isnan(scores["err"][0][1]):
                score = f"{scores['err'][0][0] / 1000:.1f} ± {scores['err'][0][1] / 1000:.1f}"
            cost = [fmt((level(row["forks"], field) or [None])[0], digits) for _, field, digits in COST]
            alloc = level(scores["bytes"]) if scores["bytes"] else None
            print(f"| `{key[2]}` | {len(row['forks'])} | {median / 1000:.1f}k [{low / 1000:.1f}-{high / 1000:.1f}] | "
                  f"{ratio} | {score} | " + " | ".join(cost) + f" | {fmt(alloc and alloc[0], 0)} | {row['dropped']} |")
        print()
    paired = []
    for pair in args.pair:
        measured, reference = pair.split("/")
        for (benchmark, threads) in sorted(groups):
            a, b = rows.get((benchmark, threads, measured)), rows.get((benchmark, threads, reference))
            if not a or not b:
                continue
            a_rounds, b_rounds = by_round(a), by_round(b)
            rounds = sorted(set(a_rounds) & set(b_rounds))
            if len(rounds) < 2:
                continue
            ratios = [a_rounds[r] / b_rounds[r] for r in rounds]
            wins = sum(ratio > 1 for ratio in ratios)
            paired.append(f"- {measured} / {reference}, {benchmark}, {threads} threads: "
                  f"median {statistics.median(ratios):.2f}x ({', '.join(f'{r:.2f}' for r in ratios)}); "
                  f"{measured} ahead in {wins} of {len(ratios)} rounds (sign test p={sign_test(wins, len(ratios)):.3f})")
    if args.pair:
        print("## Paired by round\n")
        print("\n".join(paired) or "No pair ran in two rounds or more.")


if __name__ == "__main__":
    main()
