package io.github.lettucetuning.autoconfigure.observation;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

import io.github.lettucetuning.observation.CommandObservationPath;
import io.github.lettucetuning.observation.GuardedTracing;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.tracing.MicrometerTracing;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;

/**
 * Lets Spring Boot's observation customizer (from
 * {@code LettuceObservationAutoConfiguration}) customize the client resources as before,
 * except that the {@link MicrometerTracing} it sets is guarded. Boot builds the tracing
 * inside the customizer, so the builder it is given is where the tracing can be reached;
 * the builder is an interface, and the one handed over forwards every call, replacing
 * only the tracing. Other customizers, the application's included, are left as they are.
 * <p>
 * Where the starter records the command meters itself (the fast path), Boot's customizer
 * is left out altogether: Lettuce's tracing, once set, costs every command a trace
 * context and a wrapper even before any observation starts.
 */
final class TracingGuardPostProcessor implements BeanPostProcessor, BeanFactoryAware {

	// Boot's customizer is a lambda of this class; its name is all a post-processor can
	// see. Works around Boot offering no hook for the tracing it builds:
	// docs/upstream.md#tracing-guard
	private static final String BOOT_OBSERVATION_CONFIGURATION = BootLettuceObservation.CONFIGURATION;

	private @Nullable BeanFactory beanFactory;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof ClientResourcesBuilderCustomizer customizer
				&& bean.getClass().getName().startsWith(BOOT_OBSERVATION_CONFIGURATION)) {
			if (fastPath()) {
				return (ClientResourcesBuilderCustomizer) (builder) -> {
				};
			}
			return (ClientResourcesBuilderCustomizer) (builder) -> customizer.customize(guarding(builder));
		}
		return bean;
	}

	private boolean fastPath() {
		BeanFactory beanFactory = this.beanFactory;
		if (beanFactory == null) {
			return false;
		}
		CommandObservationPath path = beanFactory.getBeanProvider(CommandObservationPath.class).getIfAvailable();
		return path != null && path.isFastPath();
	}

	private static ClientResources.Builder guarding(ClientResources.Builder builder) {
		return (ClientResources.Builder) Proxy.newProxyInstance(TracingGuardPostProcessor.class.getClassLoader(),
				new Class<?>[] { ClientResources.Builder.class }, new GuardingHandler(builder));
	}

	private static final class GuardingHandler implements InvocationHandler {

		private final ClientResources.Builder builder;

		GuardingHandler(ClientResources.Builder builder) {
			this.builder = builder;
		}

		@Override
		public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
			if ("tracing".equals(method.getName()) && args != null && args.length == 1
					&& args[0] instanceof MicrometerTracing tracing) {
				args = new Object[] { new GuardedTracing(tracing) };
			}
			Object result;
			try {
				result = method.invoke(this.builder, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
			return (result == this.builder) ? proxy : result;
		}

	}

}
