package io.github.lettucetuning.autoconfigure;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.diagnostics.InvalidTuningPropertyException;
import org.jspecify.annotations.Nullable;

/**
 * Rejects {@link LettuceTuningProperties} that cannot work, before anything connects.
 *
 * @author lettuce-tuning
 */
final class LettuceTuningPropertiesValidator {

	private LettuceTuningPropertiesValidator() {
	}

	static void validate(LettuceTuningProperties properties) {
		validateConnection(properties.getConnection());
		requirePositive("lettuce.tuning.pool.max-wait", properties.getPool().getMaxWait(),
				"Set it to how long a caller may wait for a dedicated connection, e.g. 2s");
		requireAtLeastOne("lettuce.tuning.resources.io-threads", properties.getResources().getIoThreads());
		requireAtLeastOne("lettuce.tuning.resources.computation-threads",
				properties.getResources().getComputationThreads());
		validateTimer(properties.getTimer());
	}

	private static void validateConnection(LettuceTuningProperties.Connection connection) {
		requireAtLeastOne("lettuce.tuning.connection.multi.size", connection.getMulti().getSize());
	}

	private static void validateTimer(LettuceTuningProperties.Timer timer) {
		if (timer.getTick().compareTo(Duration.ofMillis(1)) < 0) {
			throw new InvalidTuningPropertyException("lettuce.tuning.timer.tick", timer.getTick(),
					"the tick must be at least 1ms",
					"Set lettuce.tuning.timer.tick to 1ms or more; 10ms is the default.");
		}
		requireAtLeastOne("lettuce.tuning.timer.wheel-size", timer.getWheelSize());
		Long maxPending = timer.getMaxPending();
		if (maxPending != null && maxPending < 1) {
			throw new InvalidTuningPropertyException("lettuce.tuning.timer.max-pending", maxPending,
					"it must be at least 1", "Set lettuce.tuning.timer.max-pending to a positive bound, "
							+ "or remove it to use the default.");
		}
	}

	private static void requirePositive(String property, Duration value, String action) {
		if (value.isNegative() || value.isZero()) {
			throw new InvalidTuningPropertyException(property, value, "it must be positive so that no caller "
					+ "waits forever", "Set " + property + " to a positive duration. " + action + ".");
		}
	}

	private static void requireAtLeastOne(String property, @Nullable Integer value) {
		if (value != null && value < 1) {
			throw new InvalidTuningPropertyException(property, value, "it must be at least 1",
					"Set " + property + " to 1 or more, or remove it to use the default.");
		}
	}

}
