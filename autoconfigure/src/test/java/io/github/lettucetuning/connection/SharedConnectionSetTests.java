package io.github.lettucetuning.connection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Selection and in-flight counting of {@link SharedConnectionSet}, per selection policy,
 * on connections without a server.
 */
@Timeout(120)
class SharedConnectionSetTests {

	private final Provider provider = new Provider();

	private SharedConnectionSet set(int size, SelectionPolicy policy) {
		return new SharedConnectionSet(this.provider, size, policy,
				(ex) -> new RedisConnectionFailureException("translated", ex));
	}

	@Test
	void roundRobinHandsOutEveryMemberInTurn() {
		SharedConnectionSet set = set(3, SelectionPolicy.ROUND_ROBIN);
		List<StatefulConnection<?, ?>> picked = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			picked.add(set.select());
		}
		assertThat(picked.subList(0, 3)).doesNotHaveDuplicates().containsExactlyElementsOf(picked.subList(3, 6));
		assertThat(set.inFlight()).containsExactly(2, 2, 2);
		picked.forEach(set::release);
		assertThat(set.inFlight()).containsOnly(0);
	}

	@Test
	void threadAffinityGivesAThreadOneMemberAndStillCounts() throws Exception {
		SharedConnectionSet set = set(4, SelectionPolicy.THREAD_AFFINITY);
		StatefulConnection<?, ?> first = set.select();
		assertThat(set.select()).isSameAs(first);
		assertThat(sum(set.inFlight())).isEqualTo(2);
		// Sixteen distinct threads (a pool would hand every task to the same one)
		Set<StatefulConnection<?, ?>> others = ConcurrentHashMap.newKeySet();
		for (int t = 0; t < 16; t++) {
			Thread thread = new Thread(() -> {
				StatefulConnection<?, ?> connection = set.select();
				set.release(connection);
				others.add(connection);
			});
			thread.start();
			thread.join(10_000);
		}
		assertThat(others).hasSizeGreaterThan(1);
		set.release(first);
		set.release(first);
		assertThat(set.inFlight()).containsOnly(0);
	}

	@Test
	void leastInFlightPicksTheMemberWithTheFewestOperations() {
		SharedConnectionSet set = set(3, SelectionPolicy.LEAST_IN_FLIGHT);
		set.connectAll();
		List<StatefulConnection<?, ?>> members = set.connections();
		List<StatefulConnection<?, ?>> held = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			held.add(set.select());
		}
		assertThat(held).containsExactlyInAnyOrderElementsOf(members);
		set.release(members.get(1));
		assertThat(set.select()).isSameAs(members.get(1));
		assertThat(set.inFlight()).containsExactly(1, 1, 1);
	}

	@ParameterizedTest
	@EnumSource(SelectionPolicy.class)
	void failedOpenCountsNothing(SelectionPolicy policy) {
		SharedConnectionSet set = set(2, policy);
		this.provider.failing.set(true);
		assertThatExceptionOfType(RedisConnectionFailureException.class).isThrownBy(set::select)
			.withCauseInstanceOf(RedisConnectionException.class);
		assertThat(set.inFlight()).containsOnly(0);
		this.provider.failing.set(false);
		StatefulConnection<?, ?> connection = set.select();
		assertThat(sum(set.inFlight())).isOne();
		set.release(connection);
		assertThat(set.inFlight()).containsOnly(0);
	}

	@ParameterizedTest
	@EnumSource(SelectionPolicy.class)
	void closedMemberIsReplacedAndStartsAtZero(SelectionPolicy policy) {
		SharedConnectionSet set = set(1, policy);
		StatefulConnection<?, ?> held = set.select();
		held.close();
		StatefulConnection<?, ?> replacement = set.select();
		assertThat(replacement).isNotSameAs(held);
		assertThat(replacement.isOpen()).isTrue();
		assertThat(set.connections()).containsExactly(replacement);
		assertThat(set.inFlight()).containsExactly(1);
		// The operation on the closed connection ends late: it changes nothing.
		set.release(held);
		assertThat(set.inFlight()).containsExactly(1);
		set.release(replacement);
		assertThat(set.inFlight()).containsExactly(0);
	}

	@Test
	void disconnectedMemberStaysWithoutValidationAndIsReplacedWithIt() {
		SharedConnectionSet set = set(1, SelectionPolicy.ROUND_ROBIN);
		FakeConnection member = (FakeConnection) set.select();
		set.release(member);
		member.deactivated();
		StatefulConnection<?, ?> unvalidated = set.select();
		set.release(unvalidated);
		assertThat(unvalidated).as("Lettuce reconnects a disconnected member on its own").isSameAs(member);
		set.setValidateConnection(true);
		StatefulConnection<?, ?> validated = set.select();
		set.release(validated);
		assertThat(validated).isNotSameAs(member);
		assertThat(member.isClosed()).isTrue();
		assertThat(set.select()).as("an answering member is kept").isSameAs(validated);
	}

	@Test
	void validateReplacesOnlyMembersThatDoNotAnswer() {
		SharedConnectionSet set = set(3, SelectionPolicy.ROUND_ROBIN);
		set.connectAll();
		List<StatefulConnection<?, ?>> before = set.connections();
		((FakeConnection) before.get(1)).deactivated();
		set.validate();
		List<StatefulConnection<?, ?>> after = set.connections();
		assertThat(after.get(0)).isSameAs(before.get(0));
		assertThat(after.get(1)).isNotSameAs(before.get(1));
		assertThat(after.get(2)).isSameAs(before.get(2));
	}

	@Test
	void reactiveCommandsCountFromSubscriptionToCompletionErrorOrCancellation() {
		Mono<byte[]> never = Mono.never();
		this.provider.get = (key) -> switch (key) {
			case "error" -> Mono.error(new IllegalStateException("failed"));
			case "never" -> never;
			default -> Mono.just(key.getBytes());
		};
		SharedConnectionSet set = set(1, SelectionPolicy.LEAST_IN_FLIGHT);
		StatefulRedisConnection<byte[], byte[]> view = reactiveView(set);
		Mono<byte[]> unsubscribed = view.reactive().get("value".getBytes());
		assertThat(set.inFlight()).containsExactly(0);
		assertThat(unsubscribed.block(Duration.ofSeconds(1))).isEqualTo("value".getBytes());
		Disposable pending = view.reactive().get("never".getBytes()).subscribe();
		assertThat(set.inFlight()).containsExactly(1);
		pending.dispose();
		assertThat(set.inFlight()).containsExactly(0);
		assertThat(view.reactive().get("never".getBytes()).take(Duration.ZERO).blockOptional(Duration.ofSeconds(1)))
			.isEmpty();
		assertThat(view.reactive().get("error".getBytes()).onErrorResume((ex) -> Mono.empty()).blockOptional())
			.isEmpty();
		assertThat(set.inFlight()).containsExactly(0);
		assertThat(view.isOpen()).isTrue();
		assertThat(view).isInstanceOf(StatefulRedisConnection.class).isEqualTo(view);
	}

	@ParameterizedTest
	@EnumSource(SelectionPolicy.class)
	void aMillionMixedOperationsWithFailuresEndWithEveryCountAtZero(SelectionPolicy policy) throws Exception {
		this.provider.get = (key) -> switch (key.charAt(0)) {
			case 'e' -> Mono.error(new IllegalStateException("failed"));
			case 'n' -> Mono.never();
			default -> Mono.just(new byte[] { 1 });
		};
		SharedConnectionSet set = set(4, policy);
		int threads = 4;
		int operations = 250_000;
		ExecutorService callers = Executors.newFixedThreadPool(threads);
		ExecutorService completions = Executors.newFixedThreadPool(2);
		AtomicLong failures = new AtomicLong();
		AtomicBoolean negative = new AtomicBoolean();
		try {
			List<Future<?>> running = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				running.add(callers.submit(() -> {
					ThreadLocalRandom random = ThreadLocalRandom.current();
					for (int i = 0; i < operations; i++) {
						try {
							operate(set, random, completions);
						}
						catch (RuntimeException ex) {
							failures.incrementAndGet();
						}
						if (i % 1024 == 0) {
							for (int count : set.inFlight()) {
								negative.compareAndSet(false, count < 0);
							}
						}
					}
				}));
			}
			for (Future<?> future : running) {
				future.get(100, TimeUnit.SECONDS);
			}
			// Every asynchronous operation queued must complete, and release, before
			// counting.
			completions.shutdown();
			assertThat(completions.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			callers.shutdownNow();
			completions.shutdownNow();
		}
		assertThat(failures.get()).as("operations that failed").isPositive();
		assertThat(this.provider.opened.get()).as("connections opened").isGreaterThan(4);
		assertThat(negative).isFalse();
		assertThat(set.inFlight()).containsExactly(0, 0, 0, 0);
	}

	// One operation of a random kind, some failing: to open, in the operation, or because
	// a member's connection was closed under it.
	private void operate(SharedConnectionSet set, ThreadLocalRandom random, ExecutorService completions) {
		int dice = random.nextInt(1000);
		if (dice == 0) {
			List<StatefulConnection<?, ?>> connections = set.connections();
			if (!connections.isEmpty()) {
				connections.get(random.nextInt(connections.size())).close();
			}
		}
		this.provider.failing.set(dice == 1);
		if (dice < 400) {
			StatefulConnection<?, ?> connection = set.select();
			try {
				if (dice % 50 == 7 || !connection.isOpen()) {
					throw new IllegalStateException("command failed");
				}
			}
			finally {
				set.release(connection);
			}
		}
		else if (dice < 700) {
			StatefulConnection<?, ?> connection = set.select();
			CompletableFuture.runAsync(() -> {
				if (dice % 50 == 7) {
					throw new IllegalStateException("async command failed");
				}
			}, completions).whenComplete((result, ex) -> set.release(connection));
		}
		else {
			StatefulRedisConnection<byte[], byte[]> view = reactiveView(set);
			String key = (dice % 10 == 0) ? "error" : (dice % 10 == 1) ? "never" : "value";
			Disposable subscription = view.reactive().get(key.getBytes()).subscribe((value) -> {
			}, (ex) -> {
			});
			subscription.dispose();
		}
	}

	@SuppressWarnings("unchecked")
	private static StatefulRedisConnection<byte[], byte[]> reactiveView(SharedConnectionSet set) {
		return (StatefulRedisConnection<byte[], byte[]>) set.selectCountingCommands();
	}

	private static int sum(int[] counts) {
		int sum = 0;
		for (int count : counts) {
			sum += count;
		}
		return sum;
	}

	/**
	 * Opens fake connections; fails while told to.
	 */
	private static final class Provider implements LettuceConnectionProvider {

		private final AtomicBoolean failing = new AtomicBoolean();

		private final AtomicInteger opened = new AtomicInteger();

		private volatile Function<String, Mono<byte[]>> get = (key) -> Mono.just(key.getBytes());

		@Override
		public <T extends StatefulConnection<?, ?>> T getConnection(Class<T> connectionType) {
			if (this.failing.get()) {
				throw new RedisConnectionException("cannot connect");
			}
			this.opened.incrementAndGet();
			return connectionType.cast(new FakeConnection(this.get));
		}

		@Override
		public <T extends StatefulConnection<?, ?>> CompletionStage<T> getConnectionAsync(Class<T> connectionType) {
			return CompletableFuture.supplyAsync(() -> getConnection(connectionType));
		}

		@Override
		public void release(StatefulConnection<?, ?> connection) {
			connection.close();
		}

	}

}
