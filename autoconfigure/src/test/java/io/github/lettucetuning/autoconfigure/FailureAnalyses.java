package io.github.lettucetuning.autoconfigure;

import java.util.List;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

/**
 * The failure analysis a startup failure gets: the first of the registered failure
 * analyzers (Spring Boot's and lettuce-tuning's) that explains it, as Spring Boot picks
 * it when an application fails to start.
 */
public final class FailureAnalyses {

	private FailureAnalyses() {
	}

	/**
	 * Return the analysis of the given startup failure.
	 * @param failure the failure
	 * @return its analysis
	 * @throws AssertionError if no analyzer explains it
	 */
	public static FailureAnalysis of(Throwable failure) {
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader
			.forDefaultResourceLocation(FailureAnalyses.class.getClassLoader())
			.load(FailureAnalyzer.class, ArgumentResolver.of(Environment.class, new StandardEnvironment()),
					FailureHandler.handleMessage((message, ex) -> {
					}));
		for (FailureAnalyzer analyzer : analyzers) {
			FailureAnalysis analysis = analyzer.analyze(failure);
			if (analysis != null) {
				return analysis;
			}
		}
		throw new AssertionError("No failure analysis for " + failure, failure);
	}

}
