/**
 * Optional Testcontainers backend for a standalone Redis, for machines that have Docker
 * but no {@code redis-server}.
 */
@NullMarked
package io.github.lettucetuning.testsupport.testcontainers;

import org.jspecify.annotations.NullMarked;
