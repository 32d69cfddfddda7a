package io.github.lettucetuning.resilience;

import java.util.List;

import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A MULTI/EXEC through the template, as an application writes one: on a dedicated
 * connection Spring Data borrows for it.
 */
final class Transactions {

	private Transactions() {
	}

	/**
	 * Set each key to {@code 1} in one transaction.
	 * @param template the template
	 * @param keys the keys
	 * @return the results of {@code EXEC}
	 */
	static List<Object> setAll(StringRedisTemplate template, String... keys) {
		return template.execute(new SessionCallback<List<Object>>() {

			@Override
			@SuppressWarnings({ "unchecked", "rawtypes" })
			public List<Object> execute(RedisOperations operations) {
				operations.multi();
				for (String key : keys) {
					operations.opsForValue().set(key, "1");
				}
				return operations.exec();
			}

		});
	}

}
