package io.github.lettucetuning.benchmarks.modes;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Configuration;

/**
 * The application every Spring setup starts: lettuce-tuning's and Spring Boot's Redis
 * auto-configuration, nothing else. With {@code lettuce.tuning.enabled=false} it is stock
 * Spring Boot.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class })
class RedisApplication {

}
