package io.github.lettucetuning.connection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.resource.ClientResources;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Multi mode against a real server: N shared connections, all carrying traffic, dedicated
 * work kept off them, and a killed member recovering under load.
 */
@RedisStandaloneTest
@Timeout(120)
class MultiModeIntegrationTests {

	private static final AtomicInteger apps = new AtomicInteger();

	private final RedisStandalone redis;

	private String clientName;

	MultiModeIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void prepare() {
		this.redis.node().command("FLUSHALL");
		this.clientName = "multi-it-" + apps.incrementAndGet();
	}

	private ApplicationContextRunner contextRunner(String... properties) {
		return TopologiesIntegrationSupport.contextRunner(this.clientName)
			.withPropertyValues("spring.data.redis.port=" + this.redis.port(), "lettuce.tuning.connection.mode=multi",
					"lettuce.tuning.connection.multi.size=4")
			.withPropertyValues(properties);
	}

	@Test
	void twoHundredThreadsSpreadOverEveryMember() {
		contextRunner().run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			long failures = Load.run(200, 50, (i) -> {
				template.opsForValue().set("k" + i, "v" + i);
				assertThat(template.opsForValue().get("k" + i)).isEqualTo("v" + i);
			});
			assertThat(failures).isZero();
			assertThat(this.redis.node().commandAsString("DBSIZE")).isEqualTo("10000");
			List<ClientInfo> members = clients();
			assertThat(members).hasSize(4)
				.allSatisfy((client) -> assertThat(client.cmd()).as("last command of %s", client).isIn("set", "get"));
		});
	}

	@Test
	void everyPolicyServesCorrectResults() {
		for (String policy : List.of("round-robin", "thread-affinity", "least-in-flight")) {
			contextRunner("lettuce.tuning.connection.multi.selection=" + policy).run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				long failures = Load.run(32, 100, (i) -> {
					String key = policy + ":" + i;
					template.opsForValue().set(key, key);
					assertThat(template.opsForValue().get(key)).isEqualTo(key);
				});
				assertThat(failures).as(policy).isZero();
			});
		}
	}

	@Test
	void threadAffinityKeepsEachThreadOnOneConnection() {
		contextRunner("lettuce.tuning.connection.multi.selection=thread-affinity").run((context) -> {
			LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
			Set<Object> seenAcrossThreads = new HashSet<>();
			for (int t = 0; t < 16; t++) {
				Object[] natives = CompletableFuture
					.supplyAsync(() -> new Object[] { nativeConnection(factory), nativeConnection(factory),
							nativeConnection(factory) })
					.get(10, TimeUnit.SECONDS);
				assertThat(natives[1]).isSameAs(natives[0]);
				assertThat(natives[2]).isSameAs(natives[0]);
				seenAcrossThreads.add(natives[0]);
			}
			assertThat(seenAcrossThreads).hasSizeGreaterThan(1);
		});
	}

	@Test
	void roundRobinHandsOutEveryMemberInTurn() {
		contextRunner().run((context) -> {
			LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
			Set<Object> seen = new HashSet<>();
			for (int i = 0; i < 4; i++) {
				seen.add(nativeConnection(factory));
			}
			assertThat(seen).hasSize(4);
		});
	}

	@Test
	void dedicatedWorkNeverLandsOnAMember() {
		contextRunner().run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			Load.run(8, 50, (i) -> template.opsForValue().increment("counter"));
			List<CompletableFuture<String>> pops = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				pops.add(CompletableFuture
					.supplyAsync(() -> template.opsForList().leftPop("q", Duration.ofSeconds(20))));
			}
			awaitCommand("blpop", 2);
			Load.run(8, 50, (i) -> template.opsForValue().increment("counter"));
			template.execute(new SharedModeIntegrationTests.IncrementTwiceInTransaction());
			List<ClientInfo> ours = clients();
			assertThat(ours).filteredOn((client) -> client.cmd().equals("incr")).hasSize(4);
			assertThat(ours).filteredOn((client) -> client.cmd().equals("blpop")).hasSize(2);
			assertThat(ours).filteredOn((client) -> client.cmd().equals("exec")).hasSize(1);
			template.opsForList().rightPushAll("q", "1", "2");
			assertThat(pops.stream().map(CompletableFuture::join).toList()).containsExactlyInAnyOrder("1", "2");
		});
	}

	@Test
	void reactiveTemplateSpreadsOverItsOwnMembers() {
		contextRunner().run((context) -> {
			ReactiveStringRedisTemplate template = context.getBean(ReactiveStringRedisTemplate.class);
			for (int i = 0; i < 40; i++) {
				assertThat(template.opsForValue().set("r" + i, "v").block(Duration.ofSeconds(5))).isTrue();
			}
			assertThat(clients()).hasSize(4);
		});
	}

	@Test
	void killedMemberReconnectsWhileTheOthersKeepServing() {
		contextRunner().run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			Load.run(8, 10, (i) -> template.opsForValue().set("warm" + i, "v"));
			assertThat(clients()).hasSize(4);
			AtomicBoolean running = new AtomicBoolean(true);
			AtomicLong succeeded = new AtomicLong();
			CompletableFuture<Long> load = CompletableFuture.supplyAsync(() -> {
				try {
					return Load.run(16, Integer.MAX_VALUE, (i) -> {
						if (!running.get()) {
							throw new Load.Stop();
						}
						template.opsForValue().set("live" + (i % 1000), "v");
						succeeded.incrementAndGet();
					});
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
			awaitSucceeded(succeeded, 2000);
			ClientInfo victim = clients().get(0);
			Faults.killClients(this.redis.node(), String.valueOf(victim.id()));
			long beforeKill = succeeded.get();
			awaitSucceeded(succeeded, beforeKill + 5000);
			running.set(false);
			long failures = load.get(30, TimeUnit.SECONDS);
			// At most the commands in flight on the killed connection fail: one per load
			// thread.
			assertThat(failures).as("commands failed by the kill").isBetween(0L, 16L);
			assertThat(clients()).hasSize(4).noneMatch((client) -> client.id() == victim.id());
			long after = Load.run(8, 100, (i) -> template.opsForValue().set("after" + i, "v"));
			assertThat(after).isZero();
		});
	}

	@Test
	void eachMemberGetsAnEventLoopOfItsOwn() {
		contextRunner().run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			ReactiveStringRedisTemplate reactive = context.getBean(ReactiveStringRedisTemplate.class);
			LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
			assertThat(context.getBean(ClientResources.class).ioThreadPoolSize()).isGreaterThanOrEqualTo(4);
			// Members open lazily, in turn, while other connections open in between: a
			// dedicated one for a blocking pop and the reactive set's members. Netty
			// hands out event loops in turn, so without care members end up sharing
			// loops.
			for (int i = 0; i < 4; i++) {
				template.opsForValue().set("k" + i, "v");
				if (i == 0) {
					template.opsForList().leftPop("q", Duration.ofMillis(10));
				}
				assertThat(reactive.opsForValue().get("k" + i).block(Duration.ofSeconds(5))).isEqualTo("v");
			}
			assertThat(eventLoops(factory.getSharedConnections())).hasSize(4)
				.doesNotContainNull()
				.doesNotHaveDuplicates()
				.allSatisfy((thread) -> assertThat(thread).isInstanceOf(FastThreadLocalThread.class)
					.isNotSameAs(Thread.currentThread()));
			assertThat(eventLoops(factory.getSharedReactiveConnections())).hasSize(4)
				.doesNotContainNull()
				.doesNotHaveDuplicates();
			// Connections opened again are closed asynchronously: the server drops them
			// shortly.
			await().atMost(Duration.ofSeconds(5))
				.pollInterval(Duration.ofMillis(20))
				.untilAsserted(() -> assertThat(clients()).hasSize(4 + 1 + 4));
		});
	}

	private static List<Thread> eventLoops(List<StatefulConnection<?, ?>> connections) {
		return connections.stream().map(ConnectionEventLoops::of).toList();
	}

	private static Object nativeConnection(LettuceTuningConnectionFactory factory) {
		try (RedisConnection connection = factory.getConnection()) {
			return connection.getNativeConnection();
		}
	}

	private List<ClientInfo> clients() {
		return this.redis.node()
			.clientList()
			.stream()
			.filter((client) -> client.name().equals(this.clientName))
			.toList();
	}

	private void awaitCommand(String command, int count) {
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.untilAsserted(() -> assertThat(clients().stream().filter((client) -> client.cmd().equals(command)))
				.as("%d clients in %s", count, command)
				.hasSizeGreaterThanOrEqualTo(count));
	}

	private static void awaitSucceeded(AtomicLong succeeded, long target) {
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(10))
			.untilAsserted(() -> assertThat(succeeded.get()).as("commands succeeded").isGreaterThanOrEqualTo(target));
	}

}
