package io.github.lettucetuning.autoconfigure.state;

import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.state.ClientEventRecorder;
import io.lettuce.core.resource.ClientResources;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.dao.DataAccessException;
import org.springframework.context.annotation.Configuration;

/**
 * Publishes the {@link ClientEventRecorder} that the metrics and the {@code lettuce}
 * endpoint share: subscribed to the client resources' event bus, and told about command
 * exceptions by the connection factory.
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
public final class ClientEventRecorderConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	ClientEventRecorder lettuceTuningClientEventRecorder(ClientResources clientResources,
			ObjectProvider<LettuceTuningConnectionFactory> connectionFactory) {
		ClientEventRecorder recorder = new ClientEventRecorder(clientResources.eventBus());
		// Spring Data translates some exceptions twice; the translated one was seen raw
		// already.
		connectionFactory.ifAvailable((factory) -> factory.setCommandExceptionListener((ex) -> {
			if (!(ex instanceof DataAccessException)) {
				recorder.recordCommandException(ex);
			}
		}));
		return recorder;
	}

}
