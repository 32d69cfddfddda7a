package io.github.lettucetuning.autoconfigure.aot;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * Registers what lettuce-tuning reaches reflectively, for AOT-processed applications and
 * native images: the classes whose presence it probes by name (native transports,
 * commons-pool2, the Spring Boot and Lettuce version markers), the fields behind the
 * timing wheel's {@code VarHandle}s, and the classes listed in
 * {@code META-INF/spring.factories}. Bean definitions and configuration properties are
 * covered by Spring's own AOT processing. Registered in
 * {@code META-INF/spring/aot.factories}.
 *
 * @since 0.1.0
 */
public final class LettuceTuningRuntimeHints implements RuntimeHintsRegistrar {

	/**
	 * Classes whose presence lettuce-tuning checks with {@code ClassUtils.isPresent}.
	 */
	static final String[] PROBED_CLASSES = { "io.netty.channel.epoll.Epoll", "io.netty.channel.uring.IoUring",
			"io.netty.channel.kqueue.KQueue", "org.apache.commons.pool2.ObjectPool",
			"org.apache.commons.pool2.impl.GenericObjectPool", "io.lettuce.core.RedisClient",
			"io.lettuce.core.resource.ExtendedKeepAliveSupport",
			"org.springframework.boot.data.redis.autoconfigure.DataRedisProperties",
			"org.springframework.boot.data.redis.autoconfigure.DataRedisProperties$Listener" };

	static final String WHEEL_TIMER = "io.github.lettucetuning.timeout.WheelTimer";

	static final String WHEEL_TIMEOUT = "io.github.lettucetuning.timeout.WheelTimeout";

	static final String STRIPE_FIELDS = WHEEL_TIMER + "$StripeFields";

	/**
	 * Instantiated by Spring Boot from {@code META-INF/spring.factories}.
	 */
	static final String[] FACTORIES = { "io.github.lettucetuning.autoconfigure.diagnostics.VersionFloorCheck",
			"io.github.lettucetuning.autoconfigure.diagnostics.InvalidTuningPropertyFailureAnalyzer",
			"io.github.lettucetuning.autoconfigure.diagnostics.UnsupportedVersionFailureAnalyzer" };

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		for (String probed : PROBED_CLASSES) {
			hints.reflection().registerType(TypeReference.of(probed));
		}
		// Fields behind MethodHandles.lookup().findVarHandle(...)
		hints.reflection().registerType(TypeReference.of(WHEEL_TIMER), (type) -> type.withField("lifecycle"));
		hints.reflection().registerType(TypeReference.of(WHEEL_TIMEOUT), (type) -> type.withField("state"));
		hints.reflection()
			.registerType(TypeReference.of(STRIPE_FIELDS),
					(type) -> type.withField("queued").withField("cancelled").withField("added").withField("removed"));
		for (String factory : FACTORIES) {
			hints.reflection().registerType(TypeReference.of(factory), MemberCategory.INVOKE_DECLARED_CONSTRUCTORS);
		}
	}

}
