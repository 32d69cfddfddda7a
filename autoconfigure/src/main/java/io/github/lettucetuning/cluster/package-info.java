/**
 * Runtime support for Redis Cluster: which nodes of the topology the client uses.
 */
@NullMarked
package io.github.lettucetuning.cluster;

import org.jspecify.annotations.NullMarked;
