/**
 * Runtime support for Redis outages: commands fail fast once a connection has been down
 * for longer than a grace, and a connection whose server stops answering is treated as
 * down.
 */
@NullMarked
package io.github.lettucetuning.resilience;

import org.jspecify.annotations.NullMarked;
