/**
 * Standalone, Sentinel and Cluster topologies built from local {@code redis-server}
 * processes.
 */
@NullMarked
package io.github.lettucetuning.testsupport.topology;

import org.jspecify.annotations.NullMarked;
