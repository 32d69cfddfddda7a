/**
 * The read-only 'lettuce' Actuator endpoint: effective configuration, live state and
 * advice.
 */
@NullMarked
package io.github.lettucetuning.endpoint;

import org.jspecify.annotations.NullMarked;
