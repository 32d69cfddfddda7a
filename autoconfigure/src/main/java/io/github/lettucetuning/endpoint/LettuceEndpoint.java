package io.github.lettucetuning.endpoint;

import io.github.lettucetuning.advice.EffectiveConfiguration;
import io.github.lettucetuning.advice.TuningAdvisor;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.state.ClientEventRecorder;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.socket.CompositeNettyCustomizer;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The read-only {@code lettuce} endpoint: the Lettuce configuration in effect, what the
 * client is doing now, and advice about the configuration. Reading it sends nothing to
 * Redis, and it holds no credentials or key names.
 *
 * @since 0.1.0
 */
@Endpoint(id = "lettuce")
public class LettuceEndpoint {

	private final LettuceTuningConnectionFactory factory;

	private final ClientResources resources;

	private final EffectiveConfigurationReader reader;

	private final @Nullable ClientEventRecorder recorder;

	private final TuningAdvisor advisor = new TuningAdvisor();

	/**
	 * Create an endpoint.
	 * @param factory the connection factory
	 * @param resources the client resources
	 * @param reader reads the effective configuration
	 * @param recorder the recorder of client events, if any
	 */
	public LettuceEndpoint(LettuceTuningConnectionFactory factory, ClientResources resources,
			EffectiveConfigurationReader reader, @Nullable ClientEventRecorder recorder) {
		this.factory = factory;
		this.resources = resources;
		this.reader = reader;
		this.recorder = recorder;
	}

	/**
	 * Describe the client.
	 * @return the configuration, live state and advice
	 */
	@ReadOperation
	public LettuceDescriptor lettuce() {
		EffectiveConfiguration configuration = this.reader.read();
		OutageGuard guard = CompositeNettyCustomizer.find(this.resources.nettyCustomizer(), OutageGuard.class);
		return new LettuceDescriptor(configuration,
				LiveState.of(this.factory, this.resources.timer(), this.recorder, guard),
				this.advisor.advise(configuration));
	}

}
