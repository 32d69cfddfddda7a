/**
 * Fault injection handles (pause, kill, failover, slot migration, client kill, network
 * blackholing) for tests.
 */
@NullMarked
package io.github.lettucetuning.testsupport.fault;

import org.jspecify.annotations.NullMarked;
