/**
 * Micrometer meter binders for the tuned connections, the dedicated pool, the expiry
 * timer and client events.
 */
@NullMarked
package io.github.lettucetuning.metrics;

import org.jspecify.annotations.NullMarked;
