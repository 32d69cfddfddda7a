package io.github.lettucetuning.benchmarks.modes;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Switches Spring Boot's Lettuce connection factory to
 * {@code shareNativeConnection=false}, so every operation borrows a pooled connection.
 */
@Configuration(proxyBeanMethods = false)
class UnsharedNativeConnection {

	@Bean
	static BeanPostProcessor unsharedNativeConnectionPostProcessor() {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessBeforeInitialization(Object bean, String beanName) {
				if (bean instanceof LettuceConnectionFactory factory) {
					factory.setShareNativeConnection(false);
				}
				return bean;
			}

		};
	}

}
