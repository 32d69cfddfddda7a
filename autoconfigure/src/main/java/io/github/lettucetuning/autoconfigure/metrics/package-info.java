/**
 * Auto-configuration of Lettuce command latency metrics and lettuce-tuning's meters.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
