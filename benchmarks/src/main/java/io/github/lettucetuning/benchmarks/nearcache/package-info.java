/**
 * Microbenchmarks of what the near cache's hit path costs.
 */
@NullMarked
package io.github.lettucetuning.benchmarks.nearcache;

import org.jspecify.annotations.NullMarked;
