package io.github.lettucetuning.endpoint;

import java.util.List;

import io.github.lettucetuning.advice.EffectiveConfiguration;
import io.github.lettucetuning.advice.Finding;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * The response of the {@code lettuce} endpoint.
 *
 * @param configuration the configuration in effect
 * @param state what the client is doing now
 * @param advice findings about the configuration, most severe first
 * @since 0.1.0
 */
public record LettuceDescriptor(EffectiveConfiguration configuration, LiveState state,
		List<Finding> advice) implements OperationResponseBody {
}
