/**
 * Launching local {@code redis-server} processes on loopback and talking to them over a
 * tiny RESP client, usable without JUnit.
 */
@NullMarked
package io.github.lettucetuning.testsupport.server;

import org.jspecify.annotations.NullMarked;
