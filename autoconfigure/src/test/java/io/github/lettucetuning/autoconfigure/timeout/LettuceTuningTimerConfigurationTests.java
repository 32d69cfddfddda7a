package io.github.lettucetuning.autoconfigure.timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.timeout.WheelTimer;
import io.github.lettucetuning.timeout.WheelTimerOptions;
import io.lettuce.core.resource.ClientResources;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link LettuceTuningTimerConfiguration}.
 */
class LettuceTuningTimerConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class));

	@Test
	void installsOwnedWheelTimerWithTenMillisecondTickByDefault() {
		this.contextRunner.run((context) -> {
			Timer timer = context.getBean(ClientResources.class).timer();
			assertThat(timer).isInstanceOf(WheelTimer.class);
			assertThat(((WheelTimer) timer).tickDuration()).isEqualTo(Duration.ofMillis(10));
			assertThat(context.getBean(CommandExpiryTimer.class).isOwned()).isTrue();
		});
	}

	@Test
	void mapsTimerProperties() {
		this.contextRunner
			.withPropertyValues("lettuce.tuning.timer.tick=5ms", "lettuce.tuning.timer.wheel-size=1024",
					"lettuce.tuning.timer.max-pending=5000")
			.run((context) -> {
				WheelTimerOptions options = ((WheelTimer) context.getBean(ClientResources.class).timer()).options();
				assertThat(options.tickDuration()).isEqualTo(Duration.ofMillis(5));
				assertThat(options.wheelSize()).isEqualTo(1024);
				assertThat(options.maxPendingTimeouts()).isEqualTo(5000);
			});
	}

	@Test
	void nettyTypeLeavesLettucesStockTimer() {
		this.contextRunner.withPropertyValues("lettuce.tuning.timer.type=netty")
			.run((context) -> assertThat(context.getBean(ClientResources.class).timer())
				.isInstanceOf(HashedWheelTimer.class));
	}

	@Test
	void ownedTimerStopsAfterTheClientResourcesShutDown() {
		AtomicReference<Timer> timer = new AtomicReference<>();
		AtomicReference<ClientResources> resources = new AtomicReference<>();
		this.contextRunner.run((context) -> {
			resources.set(context.getBean(ClientResources.class));
			timer.set(resources.get().timer());
		});
		assertThat(resources.get().eventExecutorGroup().isShutdown()).isTrue();
		assertThatIllegalStateException().isThrownBy(() -> timer.get().newTimeout((t) -> {
		}, 1, TimeUnit.SECONDS));
	}

	@Test
	void userTimerIsSharedAndNeverStopped() {
		this.contextRunner.withUserConfiguration(UserTimerConfiguration.class).run((context) -> {
			Timer userTimer = context.getBean("userTimer", Timer.class);
			assertThat(context.getBean(ClientResources.class).timer()).isSameAs(userTimer);
			assertThat(context.getBean(CommandExpiryTimer.class).isOwned()).isFalse();
			context.close();
			assertThat(userTimer.newTimeout((t) -> {
			}, 1, TimeUnit.SECONDS).cancel()).isTrue();
			userTimer.stop();
		});
	}

	@Test
	void defaultTickMatchesTheWheelTimersDefault() {
		assertThat(new LettuceTuningProperties().getTimer().getTick())
			.isEqualTo(WheelTimerOptions.DEFAULT_TICK_DURATION);
	}

	@Test
	void invalidWheelSizeFailsStartupNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("lettuce.tuning.timer.wheel-size=" + (WheelTimerOptions.MAX_WHEEL_SIZE * 2))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class,
						(ex) -> assertThat(ex.getName()).isEqualTo("lettuce.tuning.timer.wheel-size")));
	}

	@Configuration(proxyBeanMethods = false)
	static class UserTimerConfiguration {

		@Bean(destroyMethod = "")
		Timer userTimer() {
			return new HashedWheelTimer();
		}

	}

}
