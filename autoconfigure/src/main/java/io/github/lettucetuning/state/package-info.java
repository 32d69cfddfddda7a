/**
 * Live state of the tuned Lettuce client, read in one place: the
 * {@link io.github.lettucetuning.state.ClientStateReader} and its
 * {@link io.github.lettucetuning.state.ClientState}, which the health, the meters and the
 * endpoint read; snapshots of the shared connections, the dedicated pool and the timer;
 * and counts of client events (reconnects, topology changes, redirections, command
 * timeouts).
 */
@NullMarked
package io.github.lettucetuning.state;

import org.jspecify.annotations.NullMarked;
