package io.github.lettucetuning.endpoint;

import java.util.List;

import io.github.lettucetuning.advice.EffectiveConfiguration;
import io.github.lettucetuning.advice.Finding;
import io.github.lettucetuning.state.ServerIdentity;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * The response of the {@code lettuce} endpoint.
 *
 * @param server the server as the {@code redis} health check last found it, or
 * {@code null} before a check has read it or when the check is not lettuce-tuning's
 * @param configuration the configuration in effect
 * @param state what the client is doing now
 * @param advice findings about the configuration, most severe first
 * @since 0.1.0
 */
public record LettuceDescriptor(@Nullable ServerIdentity server, EffectiveConfiguration configuration, LiveState state,
		List<Finding> advice) implements OperationResponseBody {
}
