package io.github.lettucetuning.sample.counter;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Counts visits per page.
 */
@Service
@RestController
public class VisitCounter {

	private final StringRedisTemplate redis;

	VisitCounter(StringRedisTemplate redis) {
		this.redis = redis;
	}

	@PostMapping("/visits/{page}")
	public long visit(@PathVariable String page) {
		Long visits = this.redis.opsForValue().increment("visits:" + page);
		return (visits != null) ? visits : 0;
	}

}
