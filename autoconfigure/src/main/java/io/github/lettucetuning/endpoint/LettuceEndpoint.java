package io.github.lettucetuning.endpoint;

import java.util.function.Supplier;

import io.github.lettucetuning.advice.EffectiveConfiguration;
import io.github.lettucetuning.advice.TuningAdvisor;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.credentials.CredentialsTracker;
import io.github.lettucetuning.state.ClientEventRecorder;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.state.ServerIdentity;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The read-only {@code lettuce} endpoint: the server the client talks to, the Lettuce
 * configuration in effect, what the client is doing now, and advice about the
 * configuration. Reading it sends nothing to Redis (the server is as the health check
 * last found it), and it holds no credentials or key names.
 *
 * @since 0.1.0
 */
@Endpoint(id = "lettuce")
public class LettuceEndpoint {

	private final LettuceTuningConnectionFactory factory;

	private final ClientResources resources;

	private final EffectiveConfigurationReader reader;

	private final @Nullable ClientEventRecorder recorder;

	private final @Nullable OutageGuard guard;

	private final @Nullable CredentialsTracker credentials;

	private final Supplier<@Nullable ServerIdentity> server;

	private final TuningAdvisor advisor = new TuningAdvisor();

	/**
	 * Create an endpoint, which also shows who the client authenticates as and which
	 * server it talks to.
	 * @param factory the connection factory
	 * @param resources the client resources
	 * @param reader reads the effective configuration
	 * @param recorder the recorder of client events, if any
	 * @param guard the outage guard on the connections, or {@code null} if none is
	 * installed
	 * @param credentials the tracker of the client's credentials, if any
	 * @param server the server as last seen, without a round trip (usually
	 * {@code LettuceHealthIndicator::serverIdentity}); it may supply {@code null}
	 */
	public LettuceEndpoint(LettuceTuningConnectionFactory factory, ClientResources resources,
			EffectiveConfigurationReader reader, @Nullable ClientEventRecorder recorder, @Nullable OutageGuard guard,
			@Nullable CredentialsTracker credentials, Supplier<@Nullable ServerIdentity> server) {
		this.factory = factory;
		this.resources = resources;
		this.reader = reader;
		this.recorder = recorder;
		this.guard = guard;
		this.credentials = credentials;
		this.server = server;
	}

	/**
	 * Describe the client.
	 * @return the configuration, live state and advice
	 */
	@ReadOperation
	public LettuceDescriptor lettuce() {
		EffectiveConfiguration configuration = this.reader.read();
		return new LettuceDescriptor(this.server.get(), configuration,
				LiveState.of(this.factory, this.resources.timer(), this.recorder, this.guard, this.credentials),
				this.advisor.advise(configuration));
	}

}
