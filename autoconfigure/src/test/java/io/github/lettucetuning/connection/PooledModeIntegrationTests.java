package io.github.lettucetuning.connection;

import java.time.Duration;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.PoolException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * Pooled mode against a real standalone server: every operation borrows a connection of
 * its own, waits for one as long as the command timeout, and closing the context closes
 * borrowed connections too.
 */
@RedisStandaloneTest
@Timeout(120)
class PooledModeIntegrationTests {

	private static final AtomicInteger apps = new AtomicInteger();

	private final RedisStandalone redis;

	private ApplicationContextRunner contextRunner;

	private String clientName;

	PooledModeIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void prepare() {
		this.redis.node().command("FLUSHALL");
		this.clientName = "pooled-it-" + apps.incrementAndGet();
		this.contextRunner = new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "spring.application.name=" + this.clientName,
					"lettuce.tuning.connection.mode=pooled", "spring.data.redis.lettuce.pool.max-active=4");
	}

	@Test
	void concurrentOperationsSpreadOverThreadConfinedConnectionsAndReturnThem() throws Exception {
		this.contextRunner.run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			long failures = Load.run(32, 100, (i) -> {
				template.opsForValue().set("key" + i, "value" + i);
				assertThat(template.opsForValue().get("key" + i)).isEqualTo("value" + i);
			});
			assertThat(failures).isZero();
			assertThat(template.opsForValue().size("key3199")).isEqualTo("value3199".length());
			// No shared connection: every connection is a pooled one, and several carried
			// traffic.
			assertThat(this.redis.node().clientList().stream().filter((client) -> isOurs(client))).hasSizeBetween(2, 4)
				.allSatisfy((client) -> assertThat(client.cmd()).as("last command of %s", client)
					.isIn("set", "get", "strlen"));
			assertThat(dedicatedPool(context).borrowedCount()).isZero();
		});
	}

	@Test
	void evictorRunsBesideTheLoadWithoutLosingABorrowOrAConnection() {
		this.contextRunner
			.withPropertyValues("spring.data.redis.lettuce.pool.time-between-eviction-runs=5ms",
					"spring.data.redis.lettuce.pool.min-idle=2")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				long failures = Load.run(16, 300, (i) -> template.opsForValue().increment("counter"));
				assertThat(failures).isZero();
				assertThat(template.opsForValue().get("counter")).isEqualTo("4800");
				GenericObjectPool<?> pool = dedicatedPool(context).pools().values().iterator().next();
				assertThat(pool.getBorrowedCount()).isGreaterThanOrEqualTo(4801);
				assertThat(pool.getReturnedCount()).isEqualTo(pool.getBorrowedCount());
				assertThat(pool.getNumActive()).isZero();
				assertThat(pool.getCreatedCount()).isBetween(2L, 4L);
				assertThat(pool.getDestroyedCount()).isZero();
				assertThat(pool.getMeanActiveTimeMillis()).isNotNegative();
			});
	}

	@Test
	void callerWaitsForAConnectionAsLongAsTheCommandTimeout() {
		this.contextRunner
			.withPropertyValues("spring.data.redis.lettuce.pool.max-active=1", "spring.data.redis.timeout=6s")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				CompletableFuture<Object> holder = holdTheOnlyConnection(template, Duration.ofMillis(2500));
				long start = System.nanoTime();
				// Longer than the 2 s a dedicated connection waits in the other modes.
				template.opsForValue().set("after-wait", "v");
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofSeconds(2));
				holder.join();
				assertThat(template.opsForValue().get("after-wait")).isEqualTo("v");
			});
	}

	@Test
	void callerFailsWithAPoolExceptionOnceTheWaitIsOver() {
		this.contextRunner
			.withPropertyValues("spring.data.redis.lettuce.pool.max-active=1", "spring.data.redis.timeout=1s")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				CompletableFuture<Object> holder = holdTheOnlyConnection(template, Duration.ofSeconds(4));
				long start = System.nanoTime();
				assertThatException().isThrownBy(() -> template.opsForValue().set("no-connection", "v"))
					.isInstanceOf(DataAccessException.class)
					.satisfies((ex) -> assertThat(ex).hasCauseInstanceOf(PoolException.class)
						.hasRootCauseInstanceOf(NoSuchElementException.class)
						.hasStackTraceContaining("Timed out after 1000ms"));
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(900),
						Duration.ofSeconds(4));
				holder.join();
				assertThat(template.hasKey("no-connection")).isFalse();
			});
	}

	@Test
	void reactiveBurstWiderThanThePoolWaitsForConnectionsInsteadOfFailing() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(DataRedisReactiveAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.lettuce.pool.max-active=2")
			.run((context) -> {
				ReactiveStringRedisTemplate reactive = context.getBean(ReactiveStringRedisTemplate.class);
				// Lettuce's asynchronous pool failed all but the first two at once with
				// "Pool exhausted".
				List<Boolean> written = Flux.range(0, 500)
					.flatMap((i) -> reactive.opsForValue().set("reactive" + i, "v"), 500)
					.collectList()
					.onErrorMap((ex) -> new AssertionError("A borrow failed: " + causes(ex), ex))
					.block(Duration.ofSeconds(30));
				assertThat(written).hasSize(500).containsOnly(true);
				assertThat(this.redis.node().commandAsString("DBSIZE")).isEqualTo("500");
				assertThat(this.redis.node().countClients(this.clientName)).isBetween(1L, 2L);
			});
	}

	@Test
	void reactiveCallerFailsWithAPoolExceptionOnceTheWaitIsOver() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(DataRedisReactiveAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.lettuce.pool.max-active=1", "spring.data.redis.timeout=1s")
			.run((context) -> {
				ReactiveStringRedisTemplate reactive = context.getBean(ReactiveStringRedisTemplate.class);
				CountDownLatch holding = new CountDownLatch(1);
				CompletableFuture<Void> holder = reactive
					.execute((connection) -> connection.ping()
						.doOnNext((pong) -> holding.countDown())
						.then(Mono.delay(Duration.ofSeconds(3))))
					.then()
					.toFuture();
				awaitHolding(holding);
				long start = System.nanoTime();
				assertThatException()
					.isThrownBy(() -> reactive.opsForValue().set("no-connection", "v").block(Duration.ofSeconds(10)))
					.satisfies((ex) -> assertThat(ex).hasRootCauseInstanceOf(NoSuchElementException.class)
						.hasStackTraceContaining("Timed out after 1000ms")
						.hasStackTraceContaining("spring.data.redis.lettuce.pool.max-active"));
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(900),
						Duration.ofMillis(2900));
				holder.join();
				// The caller that gave up took no turn: the connection is free again.
				assertThat(reactive.opsForValue().set("after-wait", "v").block(Duration.ofSeconds(2))).isTrue();
				assertThat(reactive.hasKey("no-connection").block(Duration.ofSeconds(2))).isFalse();
			});
	}

	@Test
	void closingTheContextClosesBorrowedConnections() throws InterruptedException {
		this.contextRunner.run((context) -> {
			RedisConnection borrowed = context.getBean(LettuceTuningConnectionFactory.class).getConnection();
			borrowed.ping();
			context.getBean(StringRedisTemplate.class).opsForValue().set("a", "b");
			assertThat(this.redis.node().countClients(this.clientName)).isEqualTo(2);
			// The borrowed connection is left open on purpose.
		});
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.untilAsserted(
					() -> assertThat(this.redis.node().countClients(this.clientName)).as("connections not closed")
						.isZero());
	}

	// Holds the pool's only connection in a callback until released, and returns once
	// the callback has it.
	private static CompletableFuture<Object> holdTheOnlyConnection(StringRedisTemplate template, Duration hold) {
		CountDownLatch holding = new CountDownLatch(1);
		CompletableFuture<Object> holder = CompletableFuture
			.supplyAsync(() -> template.execute((RedisCallback<Object>) (connection) -> {
				connection.ping();
				holding.countDown();
				sleep(hold);
				return null;
			}));
		awaitHolding(holding);
		return holder;
	}

	private static DedicatedConnectionPool dedicatedPool(ApplicationContext context) {
		return (DedicatedConnectionPool) context.getBean(LettuceTuningConnectionFactory.class)
			.getDedicatedConnectionProvider();
	}

	private boolean isOurs(ClientInfo client) {
		return client.name().equals(this.clientName);
	}

	// Spring Data reports any failed borrow as "Unable to connect to Redis": the reason
	// is
	// in the causes, which a build log's summary line leaves out.
	private static String causes(Throwable ex) {
		StringBuilder chain = new StringBuilder();
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			chain.append((chain.length() > 0) ? " <- " : "").append(cause);
		}
		return chain.toString();
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void awaitHolding(CountDownLatch latch) {
		try {
			assertThat(latch.await(10, TimeUnit.SECONDS)).as("the holder has the connection").isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
