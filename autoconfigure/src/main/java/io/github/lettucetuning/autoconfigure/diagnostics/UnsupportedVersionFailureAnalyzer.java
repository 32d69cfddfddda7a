package io.github.lettucetuning.autoconfigure.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an {@link UnsupportedVersionException}: which version lettuce-tuning needs,
 * which one the application has, and how to fix the build.
 */
class UnsupportedVersionFailureAnalyzer extends AbstractFailureAnalyzer<UnsupportedVersionException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnsupportedVersionException cause) {
		return new FailureAnalysis(cause.getMessage() + ".", cause.getAction(), cause);
	}

}
