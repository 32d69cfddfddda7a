/**
 * Wiring of the Redis Cluster options: topology refresh, redirects, membership and node
 * filter.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure.cluster;

import org.jspecify.annotations.NullMarked;
