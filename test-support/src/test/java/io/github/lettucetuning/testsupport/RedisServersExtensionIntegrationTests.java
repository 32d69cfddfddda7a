package io.github.lettucetuning.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.atomic.AtomicReference;

import io.github.lettucetuning.testsupport.server.FreePorts;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RedisProcessRegistry;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.MethodOrderer.OrderAnnotation;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

/**
 * Runs sample test classes with the JUnit engine to check the extension's lifecycle.
 */
class RedisServersExtensionIntegrationTests {

	@Test
	void topologyIsStoppedAfterTheClassEvenWhenATestFails() {
		FailingSample.captured.set(null);
		Events tests = execute(FailingSample.class).testEvents();
		tests.assertStatistics((stats) -> stats.started(2).succeeded(1).failed(1));

		RedisNode node = FailingSample.captured.get().node();
		assertThat(node.isAlive()).isFalse();
		assertThat(ProcessHandle.of(node.pid()).filter(ProcessHandle::isAlive)).isEmpty();
		assertThat(FreePorts.isFree(node.port())).isTrue();
		assertThat(node.directory()).doesNotExist();
	}

	@Test
	void invalidAnnotationFailsTheClassLoudlyAndLeaksNothing() {
		int runningBefore = RedisProcessRegistry.runningPids().size();
		execute(InvalidUserSample.class).containerEvents()
			.assertThatEvents()
			.haveExactly(1, finishedWithFailure(message((text) -> text.contains("must be written username:password"))));
		assertThat(RedisProcessRegistry.runningPids()).hasSize(runningBefore);
	}

	@Test
	void topologyWithoutAnnotationIsNotResolved() {
		execute(MissingAnnotationSample.class).testEvents()
			.assertThatEvents()
			.haveExactly(1, finishedWithFailure(message((text) -> text.contains("No ParameterResolver registered"))));
	}

	private static EngineExecutionResults execute(Class<?> testClass) {
		return EngineTestKit.engine("junit-jupiter")
			.selectors(selectClass(testClass))
			.configurationParameter(SampleCondition.PARAMETER, "true")
			.execute();
	}

	/**
	 * Keeps the sample classes (meant to fail) from running when a test filter such as
	 * {@code -Dit.test=RedisServers*} selects them directly.
	 */
	@Target(ElementType.TYPE)
	@Retention(RetentionPolicy.RUNTIME)
	@ExtendWith(SampleCondition.class)
	@interface Sample {

	}

	static class SampleCondition implements ExecutionCondition {

		static final String PARAMETER = "lettuce.tuning.run-samples";

		@Override
		public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
			return context.getConfigurationParameter(PARAMETER).isPresent()
					? ConditionEvaluationResult.enabled("run by the engine test kit")
					: ConditionEvaluationResult.disabled("sample only run by the engine test kit");
		}

	}

	@RedisStandaloneTest
	@TestMethodOrder(OrderAnnotation.class)
	@Sample
	static class FailingSample {

		static final AtomicReference<RedisStandalone> captured = new AtomicReference<>();

		@Test
		@Order(1)
		void captures(RedisStandalone redis) {
			captured.set(redis);
			assertThat(redis.node().command("PING")).isEqualTo("PONG");
		}

		@Test
		@Order(2)
		void fails() {
			throw new AssertionError("intentional failure");
		}

	}

	@RedisStandaloneTest(aclUsers = "no-colon")
	@Sample
	static class InvalidUserSample {

		@Test
		void neverRuns() {
		}

	}

	@ExtendWith(RedisServersExtension.class)
	@Sample
	static class MissingAnnotationSample {

		@Test
		void needsATopology(RedisStandalone redis) {
		}

	}

}
