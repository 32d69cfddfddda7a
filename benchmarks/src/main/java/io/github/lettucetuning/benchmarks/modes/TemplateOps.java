package io.github.lettucetuning.benchmarks.modes;

import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ValueOperations;

/**
 * A Spring application's {@link StringRedisTemplate}, whatever connection factory the
 * application configured.
 */
final class TemplateOps implements RedisOps {

	private static final String OK = "OK";

	private final ConfigurableApplicationContext context;

	private final ValueOperations<String, String> values;

	TemplateOps(ConfigurableApplicationContext context) {
		this.context = context;
		this.values = context.getBean(StringRedisTemplate.class).opsForValue();
	}

	ConfigurableApplicationContext context() {
		return this.context;
	}

	@Override
	public String set(String key, String value) {
		this.values.set(key, value);
		return OK;
	}

	@Override
	public @Nullable String get(String key) {
		return this.values.get(key);
	}

	@Override
	public void close() {
		this.context.close();
	}

}
