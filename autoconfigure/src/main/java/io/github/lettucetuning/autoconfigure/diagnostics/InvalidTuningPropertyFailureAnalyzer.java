package io.github.lettucetuning.autoconfigure.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an {@link InvalidTuningPropertyException}: which property, which value, and
 * how to fix it.
 */
class InvalidTuningPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidTuningPropertyException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidTuningPropertyException cause) {
		String description = "The property '%s' has the invalid value '%s': %s.".formatted(cause.getProperty(),
				cause.getValue(), cause.getReason());
		return new FailureAnalysis(description, cause.getAction(), cause);
	}

}
