/**
 * The demo: concurrent load on the shop with a live progress line, then the health
 * report.
 */
@NullMarked
package io.github.lettucetuning.sample.demo;

import org.jspecify.annotations.NullMarked;
