/**
 * Auto-configuration of the 'lettuce' Actuator endpoint.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
