/**
 * Live state of the tuned Lettuce client: snapshots of the shared connections and the
 * dedicated pool, and counts of client events (reconnects, topology changes,
 * redirections, command timeouts).
 */
@NullMarked
package io.github.lettucetuning.state;

import org.jspecify.annotations.NullMarked;
