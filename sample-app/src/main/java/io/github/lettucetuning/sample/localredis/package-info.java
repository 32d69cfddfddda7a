/**
 * Starts a local redis-server for the sample when none is configured or running.
 */
@NullMarked
package io.github.lettucetuning.sample.localredis;

import org.jspecify.annotations.NullMarked;
