package io.github.lettucetuning.benchmarks.report;

import java.util.List;

/**
 * One benchmark of a JMH JSON result file: the primary score and the normalised
 * allocation of {@code -prof gc}, each as per-fork lists of iteration values.
 *
 * @param key the benchmark, parameters and threads
 * @param scoreUnit the unit of the primary score
 * @param scores primary scores, one list per fork
 * @param allocNorm {@code gc.alloc.rate.norm} in bytes per operation, one list per fork
 * (empty without {@code -prof gc})
 * @param jdkVersion the JDK the forks ran on
 * @param vm the VM name and version
 * @param settings warmup and measurement iterations per fork, e.g. {@code 2 x 4 s + 3 x 3 s}
 * @author lettuce-tuning
 */
record JmhEntry(ResultKey key, String scoreUnit, List<List<Double>> scores, List<List<Double>> allocNorm,
		String jdkVersion, String vm, String settings) {

}
