package io.github.lettucetuning.benchmarks.modes;

import io.lettuce.core.TimeoutOptions;

import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Switches Lettuce's per-command timeouts off: no timer is scheduled per command.
 */
@Configuration(proxyBeanMethods = false)
class CommandTimeoutsOff {

	@Bean
	LettuceClientOptionsBuilderCustomizer commandTimeoutsOffCustomizer() {
		return (builder) -> builder.timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build());
	}

}
