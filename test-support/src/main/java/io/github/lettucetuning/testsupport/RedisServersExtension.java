package io.github.lettucetuning.testsupport;

import java.lang.reflect.Field;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

import io.github.lettucetuning.testsupport.topology.RedisTopology;
import io.github.lettucetuning.testsupport.topology.TopologyKind;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.ModifierSupport;

/**
 * Starts the topologies requested by {@link RedisStandaloneTest},
 * {@link RedisSentinelTest} and {@link RedisClusterTest} once per test class and stops
 * them after the class.
 * <p>
 * A topology lives in the store of the class that declares the annotation, so it is also
 * closed when a test or callback fails, and {@code @Nested} classes share the topology of
 * their enclosing class. Tests get it by parameter injection (constructor,
 * {@code @BeforeAll}, {@code @BeforeEach} and test methods) or through fields annotated
 * with {@link RedisServer}.
 */
public class RedisServersExtension
		implements BeforeAllCallback, AfterAllCallback, TestInstancePostProcessor, ParameterResolver {

	private static final Namespace NAMESPACE = Namespace.create(RedisServersExtension.class);

	@Override
	public void beforeAll(ExtensionContext context) {
		for (TopologyKind kind : TopologyKind.values()) {
			if (isDeclaredOn(context.getRequiredTestClass(), kind)) {
				// Start eagerly so start-up time and failures belong to the class, not a
				// test
				topology(context, kind);
			}
		}
		injectFields(context, null);
	}

	@Override
	public void afterAll(ExtensionContext context) {
		for (TopologyKind kind : TopologyKind.values()) {
			if (isDeclaredOn(context.getRequiredTestClass(), kind)) {
				RedisTopology topology = context.getStore(NAMESPACE).remove(kind, RedisTopology.class);
				if (topology != null) {
					topology.close();
				}
			}
		}
	}

	@Override
	public void postProcessTestInstance(Object testInstance, ExtensionContext context) {
		injectFields(context, testInstance);
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return TopologyKind.forType(parameterContext.getParameter().getType())
			.flatMap((kind) -> declaringContext(extensionContext, kind))
			.isPresent();
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		TopologyKind kind = TopologyKind.forType(parameterContext.getParameter().getType()).orElseThrow();
		return topology(extensionContext, kind);
	}

	private RedisTopology topology(ExtensionContext context, TopologyKind kind) {
		ExtensionContext declaring = declaringContext(context, kind)
			.orElseThrow(() -> new ExtensionConfigurationException("A " + kind.type().getSimpleName() + " needs @"
					+ TopologyAnnotations.of(kind).getSimpleName() + " on the test class or an enclosing class"));
		var attributes = AnnotationSupport
			.findAnnotation(declaring.getRequiredTestClass(), TopologyAnnotations.of(kind))
			.orElseThrow();
		return declaring.getStore(NAMESPACE)
			.computeIfAbsent(kind, (key) -> TopologyAnnotations.start(kind, attributes), RedisTopology.class);
	}

	private void injectFields(ExtensionContext context, @Nullable Object testInstance) {
		Class<?> testClass = (testInstance != null) ? testInstance.getClass() : context.getRequiredTestClass();
		Predicate<Field> matchingLifecycle = (field) -> ModifierSupport.isStatic(field) == (testInstance == null);
		List<Field> fields = AnnotationSupport.findAnnotatedFields(testClass, RedisServer.class, matchingLifecycle);
		for (Field field : fields) {
			TopologyKind kind = TopologyKind.forType(field.getType())
				.orElseThrow(() -> new ExtensionConfigurationException("@RedisServer field " + field
						+ " must be a RedisStandalone, RedisSentinelTopology or RedisClusterTopology"));
			setField(field, testInstance, topology(context, kind));
		}
	}

	private static void setField(Field field, @Nullable Object target, RedisTopology topology) {
		try {
			field.setAccessible(true);
			field.set(target, topology);
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			throw new ExtensionConfigurationException("Cannot inject " + field, ex);
		}
	}

	private static Optional<ExtensionContext> declaringContext(ExtensionContext context, TopologyKind kind) {
		Optional<ExtensionContext> current = Optional.of(context);
		while (current.isPresent() && current.get().getTestClass().isPresent()) {
			ExtensionContext candidate = current.get();
			boolean classLevel = candidate.getTestMethod().isEmpty();
			if (classLevel && isDeclaredOn(candidate.getRequiredTestClass(), kind)) {
				return current;
			}
			current = candidate.getParent();
		}
		return Optional.empty();
	}

	private static boolean isDeclaredOn(Class<?> testClass, TopologyKind kind) {
		return AnnotationSupport.isAnnotated(testClass, TopologyAnnotations.of(kind));
	}

}
