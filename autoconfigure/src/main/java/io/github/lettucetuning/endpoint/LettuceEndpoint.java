package io.github.lettucetuning.endpoint;

import io.github.lettucetuning.advice.EffectiveConfiguration;
import io.github.lettucetuning.advice.TuningAdvisor;
import io.github.lettucetuning.state.ClientStateReader;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.util.Assert;

/**
 * The read-only {@code lettuce} endpoint: the server the client talks to, the Lettuce
 * configuration in effect, what the client is doing now, and advice about the
 * configuration. Reading it sends nothing to Redis (the server is as the health check
 * last found it), and it holds no credentials or key names. Everything it shows comes
 * from one {@link ClientStateReader}, which the health and the meters read too.
 *
 * @since 0.1.0
 */
@Endpoint(id = "lettuce")
public class LettuceEndpoint {

	private final ClientStateReader state;

	private final TuningAdvisor advisor = new TuningAdvisor();

	/**
	 * Create an endpoint.
	 * @param state the reader of the running client
	 */
	public LettuceEndpoint(ClientStateReader state) {
		Assert.notNull(state, "'state' must not be null");
		this.state = state;
	}

	/**
	 * Describe the client.
	 * @return the configuration, live state and advice
	 */
	@ReadOperation
	public LettuceDescriptor lettuce() {
		EffectiveConfiguration configuration = this.state.configuration();
		return new LettuceDescriptor(this.state.server(), configuration, LiveState.of(this.state.read()),
				this.advisor.advise(configuration));
	}

}
