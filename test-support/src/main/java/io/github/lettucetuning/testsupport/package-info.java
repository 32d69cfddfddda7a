/**
 * JUnit Jupiter extension and annotations that run real {@code redis-server} topologies
 * for a test class.
 */
@NullMarked
package io.github.lettucetuning.testsupport;

import org.jspecify.annotations.NullMarked;
