/**
 * Orders placed atomically in a MULTI/EXEC transaction, on a dedicated connection.
 */
@NullMarked
package io.github.lettucetuning.sample.orders;

import org.jspecify.annotations.NullMarked;
