package io.github.lettucetuning.timeout;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * Tests for {@link WheelTimerOptions}.
 */
class WheelTimerOptionsTests {

	private final ThreadFactory threadFactory = Thread::new;

	private final Executor taskExecutor = Runnable::run;

	private final Ticker ticker = new ManualTicker();

	@Test
	void createReturnsDefaults() {
		WheelTimerOptions options = WheelTimerOptions.create();
		assertThat(options.tickDuration()).isEqualTo(Duration.ofMillis(10))
			.isEqualTo(WheelTimerOptions.DEFAULT_TICK_DURATION);
		assertThat(options.wheelSize()).isEqualTo(8192).isEqualTo(WheelTimerOptions.DEFAULT_WHEEL_SIZE);
		assertThat(options.wheelSpan()).isEqualTo(Duration.ofMillis(81_920));
		assertThat(options.maxPendingTimeouts()).isEqualTo(1_000_000)
			.isEqualTo(WheelTimerOptions.DEFAULT_MAX_PENDING_TIMEOUTS);
		assertThat(options.threadName()).isEqualTo("lettuce-tuning-timer")
			.isEqualTo(WheelTimerOptions.DEFAULT_THREAD_NAME);
		assertThat(options.threadFactory()).isNull();
		assertThat(options.taskExecutor()).isNull();
		assertThat(options.ticker()).isSameAs(Ticker.system());
		assertThat(WheelTimerOptions.builder().build()).isEqualTo(options).hasSameHashCodeAs(options);
	}

	@Test
	void defaultWheelCoversOneMinuteAtTheDefaultTick() {
		assertThat(WheelTimerOptions.create().wheelSpan()).isGreaterThanOrEqualTo(Duration.ofSeconds(60));
	}

	@Test
	void builderSetsEveryOption() {
		WheelTimerOptions options = allNonDefault();
		assertThat(options.tickDuration()).isEqualTo(Duration.ofMillis(5));
		assertThat(options.wheelSize()).isEqualTo(1024);
		assertThat(options.maxPendingTimeouts()).isEqualTo(42);
		assertThat(options.threadName()).isEqualTo("custom-timer");
		assertThat(options.threadFactory()).isSameAs(this.threadFactory);
		assertThat(options.taskExecutor()).isSameAs(this.taskExecutor);
		assertThat(options.ticker()).isSameAs(this.ticker);
	}

	@Test
	void mutateRoundTripsEveryOption() {
		WheelTimerOptions options = allNonDefault();
		WheelTimerOptions copy = options.mutate().build();
		assertThat(copy).isNotSameAs(options).isEqualTo(options).hasSameHashCodeAs(options);
		assertThat(copy.tickDuration()).isEqualTo(options.tickDuration());
		assertThat(copy.wheelSize()).isEqualTo(options.wheelSize());
		assertThat(copy.maxPendingTimeouts()).isEqualTo(options.maxPendingTimeouts());
		assertThat(copy.threadName()).isEqualTo(options.threadName());
		assertThat(copy.threadFactory()).isSameAs(options.threadFactory());
		assertThat(copy.taskExecutor()).isSameAs(options.taskExecutor());
		assertThat(copy.ticker()).isSameAs(options.ticker());
		assertThat(WheelTimerOptions.copyOf(options)).isEqualTo(options);
	}

	@Test
	void mutateLeavesTheOriginalUnchanged() {
		WheelTimerOptions options = allNonDefault();
		WheelTimerOptions changed = options.mutate().wheelSize(16).taskExecutor(null).threadFactory(null).build();
		assertThat(changed.wheelSize()).isEqualTo(16);
		assertThat(changed.taskExecutor()).isNull();
		assertThat(changed.threadFactory()).isNull();
		assertThat(options.wheelSize()).isEqualTo(1024);
		assertThat(options.taskExecutor()).isSameAs(this.taskExecutor);
		assertThat(changed).isNotEqualTo(options);
	}

	@Test
	void toStringNamesEveryOption() {
		assertThat(allNonDefault().toString()).contains("tickDuration=PT0.005S", "wheelSize=1024",
				"maxPendingTimeouts=42", "threadName=custom-timer", "threadFactory=", "taskExecutor=", "ticker=");
	}

	@Test
	void acceptsBoundaryValues() {
		WheelTimerOptions options = WheelTimerOptions.builder()
			.tickDuration(Duration.ofMillis(1))
			.wheelSize(1)
			.maxPendingTimeouts(1)
			.build();
		assertThat(options.wheelSpan()).isEqualTo(Duration.ofMillis(1));
		assertThat(WheelTimerOptions.builder().wheelSize(WheelTimerOptions.MAX_WHEEL_SIZE).build().wheelSize())
			.isEqualTo(1 << 20);
		assertThat(WheelTimerOptions.builder().maxPendingTimeouts(Long.MAX_VALUE).build().maxPendingTimeouts())
			.isEqualTo(Long.MAX_VALUE);
	}

	@Test
	void rejectsNullTickDuration() {
		assertThatIllegalArgumentException().isThrownBy(() -> WheelTimerOptions.builder().tickDuration(null))
			.withMessage("tickDuration must be at least 1 ms but was null");
	}

	@Test
	void rejectsTickDurationBelowOneMillisecond() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> WheelTimerOptions.builder().tickDuration(Duration.ofNanos(999_999)))
			.withMessage("tickDuration must be at least 1 ms but was PT0.000999999S");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> WheelTimerOptions.builder().tickDuration(Duration.ofMillis(-10)))
			.withMessage("tickDuration must be at least 1 ms but was PT-0.01S");
	}

	@Test
	void rejectsWheelSizeThatIsNotAPowerOfTwo() {
		assertThatIllegalArgumentException().isThrownBy(() -> WheelTimerOptions.builder().wheelSize(6000))
			.withMessage("wheelSize must be a power of two between 1 and 1048576 but was 6000 (try 4096 or 8192)");
	}

	@Test
	void rejectsWheelSizeOutOfRange() {
		assertThatIllegalArgumentException().isThrownBy(() -> WheelTimerOptions.builder().wheelSize(0))
			.withMessage("wheelSize must be a power of two between 1 and 1048576 but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> WheelTimerOptions.builder().wheelSize(1 << 21))
			.withMessage("wheelSize must be a power of two between 1 and 1048576 but was 2097152");
	}

	@Test
	void rejectsNonPositiveMaxPendingTimeouts() {
		assertThatIllegalArgumentException().isThrownBy(() -> WheelTimerOptions.builder().maxPendingTimeouts(0))
			.withMessage("maxPendingTimeouts must be greater than 0 but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> WheelTimerOptions.builder().maxPendingTimeouts(-1))
			.withMessage("maxPendingTimeouts must be greater than 0 but was -1");
	}

	@Test
	void rejectsBlankThreadName() {
		assertThatIllegalArgumentException().isThrownBy(() -> WheelTimerOptions.builder().threadName(" "))
			.withMessage("threadName must not be blank but was ' '");
		assertThatIllegalArgumentException().isThrownBy(() -> WheelTimerOptions.builder().threadName(null))
			.withMessage("threadName must not be blank but was 'null'");
	}

	@Test
	void rejectsNullTicker() {
		assertThatIllegalArgumentException().isThrownBy(() -> WheelTimerOptions.builder().ticker(null))
			.withMessage("ticker must not be null");
	}

	@Test
	void rejectsWheelSpanThatOverflowsNanoseconds() {
		WheelTimerOptions.Builder builder = WheelTimerOptions.builder()
			.tickDuration(Duration.ofDays(365))
			.wheelSize(1024);
		assertThatIllegalArgumentException().isThrownBy(builder::build)
			.withMessage("tickDuration x wheelSize must fit in 9223372036854775807 ns but tickDuration was "
					+ "PT8760H and wheelSize 1024");
	}

	@Test
	void copyOfRejectsNull() {
		assertThatNullPointerException().isThrownBy(() -> WheelTimerOptions.copyOf(null))
			.withMessage("options must not be null");
	}

	private WheelTimerOptions allNonDefault() {
		return WheelTimerOptions.builder()
			.tickDuration(Duration.ofMillis(5))
			.wheelSize(1024)
			.maxPendingTimeouts(42)
			.threadName("custom-timer")
			.threadFactory(this.threadFactory)
			.taskExecutor(this.taskExecutor)
			.ticker(this.ticker)
			.build();
	}

}
