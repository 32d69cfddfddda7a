/**
 * Joins JMH's JSON results with the harness's side file into {@code modes.json}, a
 * Markdown results page and PNG charts.
 */
@NullMarked
package io.github.lettucetuning.benchmarks.report;

import org.jspecify.annotations.NullMarked;
