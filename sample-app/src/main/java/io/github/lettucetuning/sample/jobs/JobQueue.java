package io.github.lettucetuning.sample.jobs;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A job queue: producers push, workers take with a blocking pop (BRPOP), which holds a
 * dedicated connection while it waits instead of stalling the shared one.
 */
@Service
@RestController
public class JobQueue {

	static final String KEY = "jobs";

	private final StringRedisTemplate redis;

	JobQueue(StringRedisTemplate redis) {
		this.redis = redis;
	}

	@PostMapping("/jobs")
	public long submit(@RequestBody String job) {
		Long length = this.redis.opsForList().leftPush(KEY, job);
		return (length != null) ? length : 0;
	}

	public @Nullable String take(Duration timeout) {
		return this.redis.opsForList().rightPop(KEY, timeout);
	}

	@PostMapping("/jobs/take")
	@Nullable String take(@RequestParam(defaultValue = "1000") long timeoutMillis) {
		return take(Duration.ofMillis(timeoutMillis));
	}

}
