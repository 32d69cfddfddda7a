package io.github.lettucetuning.autoconfigure.socket;

import io.github.lettucetuning.socket.Transport;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/**
 * Selects the Netty transport before any bean is created: Lettuce fixes its transport the
 * first time one of its classes needs it (Spring Boot's client resources bean does), so a
 * later step would be too late.
 */
final class TransportSelectingPostProcessor
		implements BeanFactoryPostProcessor, EnvironmentAware, BeanClassLoaderAware {

	private @Nullable Environment environment;

	private @Nullable ClassLoader classLoader;

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void setBeanClassLoader(ClassLoader classLoader) {
		this.classLoader = classLoader;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		Transport requested = (this.environment != null)
				? Binder.get(this.environment).bind(TransportSelector.PROPERTY, Transport.class).orElse(Transport.AUTO)
				: Transport.AUTO;
		TransportSelector.forClassLoader(this.classLoader).select(requested);
	}

}
