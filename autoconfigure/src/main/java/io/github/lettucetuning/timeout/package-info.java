/**
 * Timing-wheel {@link io.netty.util.Timer} tuned for Lettuce command timeouts.
 */
@org.jspecify.annotations.NullMarked
package io.github.lettucetuning.timeout;
