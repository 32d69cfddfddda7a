/**
 * Runtime support for the client's event loops, the threads that read every reply: they
 * are marked as non-blocking, a synchronous call made on one fails at once, and a loop
 * the application blocks is detected and named.
 */
@NullMarked
package io.github.lettucetuning.eventloop;

import org.jspecify.annotations.NullMarked;
