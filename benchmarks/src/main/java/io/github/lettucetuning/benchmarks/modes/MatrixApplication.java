package io.github.lettucetuning.benchmarks.modes;

import io.github.lettucetuning.autoconfigure.metrics.LettuceTuningMetricsAutoConfiguration;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.context.annotation.Configuration;

/**
 * What an application with actuator adds to {@link RedisApplication} on the Redis hot
 * path: a {@code MeterRegistry} and an {@code ObservationRegistry} (so stock Boot
 * observes every Lettuce command), lettuce-tuning's metrics, and the reactive template.
 * The uber-jar merges no {@code AutoConfiguration.imports} files, so the
 * auto-configurations are named here. {@link MatrixBenchmark} adds this class to the
 * setups of {@link ClientSetups} through {@code spring.main.sources}, so both sides get
 * exactly the same additions.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
		CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
		LettuceObservationAutoConfiguration.class, LettuceTuningMetricsAutoConfiguration.class,
		DataRedisReactiveAutoConfiguration.class })
class MatrixApplication {

}
