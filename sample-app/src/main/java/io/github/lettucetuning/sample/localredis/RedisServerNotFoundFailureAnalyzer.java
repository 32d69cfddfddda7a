package io.github.lettucetuning.sample.localredis;

import io.github.lettucetuning.sample.localredis.LocalRedisServer.RedisServerNotFoundException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a missing {@code redis-server} when the sample needed to start one.
 */
class RedisServerNotFoundFailureAnalyzer extends AbstractFailureAnalyzer<RedisServerNotFoundException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, RedisServerNotFoundException cause) {
		return new FailureAnalysis(
				"No Redis is configured, none answers on localhost:6379, and a local one could not be started: "
						+ cause.getMessage(),
				"Install redis-server ('apt-get install -y redis-server' on Debian or Ubuntu), start a Redis on "
						+ "localhost:6379, or point spring.data.redis.host and spring.data.redis.port at one.",
				cause);
	}

}
