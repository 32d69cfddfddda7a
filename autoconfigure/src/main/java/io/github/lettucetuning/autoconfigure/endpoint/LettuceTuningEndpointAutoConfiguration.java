package io.github.lettucetuning.autoconfigure.endpoint;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.autoconfigure.state.ClientEventRecorderConfiguration;
import io.github.lettucetuning.autoconfigure.state.ClientStateConfiguration;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.state.ClientStateReader;
import io.lettuce.core.RedisClient;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Auto-configuration of the read-only {@code lettuce} Actuator endpoint.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = LettuceTuningAutoConfiguration.class)
@ConditionalOnClass({ RedisClient.class, Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(LettuceTuningConnectionFactory.class)
@ConditionalOnAvailableEndpoint(LettuceEndpoint.class)
@EnableConfigurationProperties(LettuceTuningProperties.class)
@Import({ ClientEventRecorderConfiguration.class, ClientStateConfiguration.class })
public final class LettuceTuningEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LettuceEndpoint lettuceEndpoint(ClientStateReader clientState) {
		return new LettuceEndpoint(clientState);
	}

}
