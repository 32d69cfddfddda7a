/**
 * Auto-configuration of what happens to commands during a Redis outage.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure.resilience;

import org.jspecify.annotations.NullMarked;
