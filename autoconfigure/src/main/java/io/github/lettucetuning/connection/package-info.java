/**
 * Runtime pieces of the connection modes: the tuned connection factory, its shared
 * connection set and the dedicated pool.
 */
@NullMarked
package io.github.lettucetuning.connection;

import org.jspecify.annotations.NullMarked;
