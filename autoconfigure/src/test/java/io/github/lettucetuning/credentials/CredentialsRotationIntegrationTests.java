package io.github.lettucetuning.credentials;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

import io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.health.LettuceHealthIndicator;
import io.github.lettucetuning.state.ClientState;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.event.connection.ReauthenticationFailedEvent;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Credentials that rotate, and credentials the server refuses, against a real server with
 * ACL users. Each rotation moves to a new user name, so that {@code CLIENT LIST} shows
 * from the server's side which credentials every connection holds.
 */
@RedisStandaloneTest
@Timeout(180)
class CredentialsRotationIntegrationTests {

	private static final int THREADS = 16;

	private static final int ROTATIONS = 4;

	private static final Duration ROTATION = Duration.ofSeconds(3);

	// One connection killed before each rotation and one after.
	private static final int KILLS = 2 * ROTATIONS;

	private final RedisStandalone redis;

	CredentialsRotationIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	private ApplicationContextRunner contextRunner(String clientName) {
		// Grace and stall timeout well above what a loaded machine needs to reconnect:
		// this test is about credentials, and any failure at all fails it.
		return ObservabilityIntegrationSupport.contextRunner(clientName)
			.withPropertyValues("spring.data.redis.port=" + this.redis.port(), "spring.data.redis.timeout=10s",
					"lettuce.tuning.resilience.fail-fast.grace=10s",
					"lettuce.tuning.resilience.stall-detection.timeout=10s");
	}

	@Test
	void everyConnectionTakesRotatedCredentialsUnderLoadAndKills() throws Exception {
		RedisNode node = this.redis.node();
		String clientName = "creds-rotation";
		createUser(node, "rot-0", password(0));
		RotatingCredentials credentials = new RotatingCredentials("rot-0", password(0));
		contextRunner(clientName)
			.withPropertyValues("lettuce.tuning.connection.mode=multi", "lettuce.tuning.connection.multi.size=3")
			// @Primary: the bean Spring Boot's connection is meant to authenticate with.
			.withBean("rotatingCredentials", RedisCredentialsProvider.class, () -> credentials,
					(definition) -> definition.setPrimary(true))
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				Traffic traffic = new Traffic(template);
				LongAdder received = new LongAdder();
				Queue<String> reauthenticationFailures = new ConcurrentLinkedQueue<>();
				Disposable events = context.getBean(ClientResources.class)
					.eventBus()
					.get()
					.ofType(ReauthenticationFailedEvent.class)
					.subscribe((failed) -> reauthenticationFailures.add(Traffic.describe(failed.getCause())));
				RedisConnection subscriber = context.getBean(RedisConnectionFactory.class).getConnection();
				subscriber.subscribe((message, pattern) -> received.increment(),
						"rotation".getBytes(StandardCharsets.UTF_8));
				try {
					traffic.start();
					await(Duration.ofSeconds(10), "traffic running", () -> traffic.operations.sum() > 100);
					for (int rotation = 1; rotation <= ROTATIONS; rotation++) {
						long started = System.nanoTime();
						killOneConnection(node, clientName);
						createUser(node, "rot-" + rotation, password(rotation));
						credentials.rotate("rot-" + rotation, password(rotation));
						String user = "rot-" + rotation;
						// Every connection, shared, pooled and Pub/Sub, re-authenticated
						// within one rotation, as the server sees it.
						await(ROTATION,
								() -> "every connection authenticated as " + user + ": " + usersOf(node, clientName),
								() -> allAuthenticatedAs(node, clientName, user));
						node.command("ACL", "DELUSER", "rot-" + (rotation - 1));
						killOneConnection(node, clientName);
						sleepUntil(started + ROTATION.toNanos());
					}
					await(Duration.ofSeconds(10), "messages after the last rotation", () -> {
						template.convertAndSend("rotation", "ping");
						return received.sum() > 0;
					});
				}
				finally {
					traffic.stop();
					subscriber.close();
					events.dispose();
				}
				assertThat(traffic.authenticationFailures).as("WRONGPASS, NOAUTH or NOPERM failures")
					.extracting(Traffic::describe)
					.isEmpty();
				assertThat(traffic.otherFailures).as("other failures").extracting(Traffic::describe).isEmpty();
				// What a kill does whatever the credentials: Lettuce fails the command at
				// the head of a reset connection and replays the rest, so a transaction
				// cut by a kill may replay its EXEC without its MULTI. At most two per
				// kill.
				assertThat(traffic.killArtefacts).as("failures caused by kills")
					.extracting(Traffic::describe)
					.hasSizeLessThanOrEqualTo(2 * KILLS);
				assertThat(traffic.operations.sum()).isGreaterThan(1000);
				assertThat(usersOf(node, clientName)).containsOnlyKeys("rot-" + ROTATIONS);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				double reauthenticated = registry.get("lettuce.tuning.reauthentications")
					.tag("outcome", "success")
					.functionCounter()
					.count();
				// At least the three shared connections at every rotation.
				assertThat(reauthenticated).isGreaterThanOrEqualTo(3 * ROTATIONS);
				// An AUTH at the head of a connection a kill resets fails like any
				// command;
				// no re-authentication may fail for another reason.
				assertThat(reauthenticationFailures).as("re-authentication failures")
					.filteredOn((failure) -> !Traffic.isKillArtefact(failure))
					.isEmpty();
				assertThat(reauthenticationFailures).hasSizeLessThanOrEqualTo(KILLS);
				assertThat(registry.get("lettuce.tuning.reauthentications")
					.tag("outcome", "failure")
					.functionCounter()
					.count()).isEqualTo(reauthenticationFailures.size());
				ClientState.Credentials shown = context.getBean(LettuceEndpoint.class).lettuce().state().credentials();
				assertThat(shown).isNotNull();
				assertThat(shown.user()).isEqualTo("rot-" + ROTATIONS);
				assertThat(shown.rotating()).isTrue();
				assertThat(shown.reauthenticate()).isEqualTo("ON_NEW_CREDENTIALS");
				assertThat(shown.source()).isEqualTo(RotatingCredentials.class.getName());
				assertThat(shown.choice()).startsWith("bean 'rotatingCredentials' is the @Primary credentials bean");
				assertThat(shown.reauthentications()).isEqualTo((long) reauthenticated);
				assertThat(shown.lastReauthentication()).isNotNull();
				assertThat(shown.lastIssued()).isNotNull();
				String json = JsonMapper.builder()
					.build()
					.writeValueAsString(context.getBean(LettuceEndpoint.class).lettuce());
				for (int rotation = 0; rotation <= ROTATIONS; rotation++) {
					assertThat(json).doesNotContain(password(rotation));
				}
			});
		node.command("ACL", "DELUSER", "rot-" + ROTATIONS);
	}

	@Test
	void passwordChangedBehindTheClientsBackIsReportedAsARejection() throws Exception {
		RedisNode node = this.redis.node();
		String clientName = "creds-rejected";
		String password = "Before-" + System.nanoTime();
		String changed = "After-" + System.nanoTime();
		createUser(node, "victim", password);
		try {
			contextRunner(clientName)
				.withPropertyValues("spring.data.redis.username=victim", "spring.data.redis.password=" + password,
						"lettuce.tuning.resilience.fail-fast.grace=1s")
				.run((context) -> {
					StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
					template.opsForValue().set("victim", "ok");
					LettuceHealthIndicator health = context.getBean(LettuceHealthIndicator.class);
					assertThat(health.health().getStatus()).isEqualTo(Status.UP);
					node.command("ACL", "SETUSER", "victim", "resetpass", ">" + changed);
					assertThat(Faults.killClients(node, clientName)).isPositive();
					await(Duration.ofSeconds(15), "the caller told of the rejection", () -> {
						try {
							template.opsForValue().get("victim");
							return false;
						}
						catch (DataAccessException ex) {
							return String.valueOf(ex.getMessage()).contains("refuses the credentials of user 'victim'");
						}
					});
					assertThatExceptionOfType(DataAccessException.class)
						.isThrownBy(() -> template.opsForValue().get("victim"))
						.satisfies((ex) -> assertThat(ex.getMessage())
							.startsWith("DENIED by lettuce-tuning: Redis at " + node.host() + ":" + node.port()
									+ " answers but refuses the credentials of user 'victim' (WRONGPASS")
							.doesNotContain("unreachable for")
							.doesNotContain(password)
							.doesNotContain(changed));
					Health down = health.health();
					assertThat(down.getStatus()).isEqualTo(Status.DOWN);
					assertThat(String.valueOf(down.getDetails().get("error")))
						.contains("refuses the credentials of user 'victim'");
					assertThat(down.getDetails().get("unreachable"))
						.asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.list(Map.class))
						.anySatisfy((outage) -> assertThat(String.valueOf(outage.get("rejected")))
							.startsWith("refuses the credentials of user 'victim' (WRONGPASS"));
					List<ClientState.Outage> outages = context.getBean(LettuceEndpoint.class)
						.lettuce()
						.state()
						.outages()
						.unreachable();
					assertThat(outages).isNotEmpty()
						.allSatisfy((outage) -> assertThat(outage.rejection()).contains("user 'victim'"));
					JsonMapper json = JsonMapper.builder().build();
					assertThat(json.writeValueAsString(down.getDetails())).doesNotContain(password)
						.doesNotContain(changed);
					assertThat(json.writeValueAsString(context.getBean(LettuceEndpoint.class).lettuce()))
						.doesNotContain(password)
						.doesNotContain(changed);
					// Given its password back, the user is let in again and the report
					// clears.
					node.command("ACL", "SETUSER", "victim", "resetpass", ">" + password);
					await(Duration.ofSeconds(15), "health UP again", () -> health.health().getStatus() == Status.UP);
					assertThat(template.opsForValue().get("victim")).isEqualTo("ok");
				});
		}
		finally {
			node.command("ACL", "DELUSER", "victim");
		}
	}

	private static String password(int rotation) {
		return "Secret-" + rotation + "-" + Long.toHexString(Double.doubleToLongBits(rotation + 0.5));
	}

	private static void createUser(RedisNode node, String user, String password) {
		node.command("ACL", "SETUSER", user, "reset", "on", ">" + password, "~*", "&*", "+@all");
	}

	private static Map<String, Long> usersOf(RedisNode node, String clientName) {
		return ours(node, clientName).stream()
			.collect(Collectors.groupingBy((client) -> client.fields().get("user"), Collectors.counting()));
	}

	private static boolean allAuthenticatedAs(RedisNode node, String clientName, String user) {
		List<ClientInfo> ours = ours(node, clientName);
		return !ours.isEmpty() && ours.stream().allMatch((client) -> user.equals(client.fields().get("user")));
	}

	private static List<ClientInfo> ours(RedisNode node, String clientName) {
		return node.clientList().stream().filter((client) -> client.name().equals(clientName)).toList();
	}

	private static void killOneConnection(RedisNode node, String clientName) {
		List<ClientInfo> ours = ours(node, clientName);
		if (!ours.isEmpty()) {
			ClientInfo victim = ours.get(ThreadLocalRandom.current().nextInt(ours.size()));
			Faults.killClients(node, Long.toString(victim.id()));
		}
	}

	private static void sleepUntil(long deadlineNanos) throws InterruptedException {
		long left = deadlineNanos - System.nanoTime();
		if (left > 0) {
			TimeUnit.NANOSECONDS.sleep(left);
		}
	}

	/**
	 * Sixteen threads of plain commands on the shared connections and transactions on
	 * dedicated ones.
	 */
	private static final class Traffic {

		private final StringRedisTemplate template;

		private final ExecutorService threads = Executors.newFixedThreadPool(THREADS);

		private final AtomicBoolean running = new AtomicBoolean(true);

		private final LongAdder operations = new LongAdder();

		private final Queue<Throwable> authenticationFailures = new ConcurrentLinkedQueue<>();

		private final Queue<Throwable> otherFailures = new ConcurrentLinkedQueue<>();

		private final Queue<Throwable> killArtefacts = new ConcurrentLinkedQueue<>();

		Traffic(StringRedisTemplate template) {
			this.template = template;
		}

		void start() {
			for (int thread = 0; thread < THREADS; thread++) {
				String key = "rotation:" + thread;
				this.threads.execute(() -> run(key));
			}
		}

		private void run(String key) {
			for (long i = 0; this.running.get(); i++) {
				try {
					if (i % 16 == 0) {
						this.template.execute(new IncrementInTransaction(key));
					}
					else {
						this.template.opsForValue().set(key, Long.toString(i));
						this.template.opsForValue().get(key);
					}
					this.operations.increment();
				}
				catch (RuntimeException ex) {
					record(ex);
				}
			}
		}

		private void record(Throwable failure) {
			for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
				String message = String.valueOf(cause.getMessage());
				if (message.contains("WRONGPASS") || message.contains("NOAUTH") || message.contains("NOPERM")) {
					this.authenticationFailures.add(failure);
					return;
				}
				if (isKillArtefact(message)) {
					this.killArtefacts.add(failure);
					return;
				}
			}
			this.otherFailures.add(failure);
		}

		static boolean isKillArtefact(String message) {
			return message.startsWith("ERR EXEC without MULTI") || message.contains("Connection reset by peer");
		}

		static String describe(Throwable failure) {
			StringBuilder description = new StringBuilder();
			for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
				description.append(" <- ")
					.append(cause.getClass().getSimpleName())
					.append(": ")
					.append(cause.getMessage());
			}
			return description.toString();
		}

		void stop() throws InterruptedException {
			this.running.set(false);
			this.threads.shutdown();
			assertThat(this.threads.awaitTermination(30, TimeUnit.SECONDS)).as("traffic stopped").isTrue();
		}

	}

	private record IncrementInTransaction(String key) implements SessionCallback<List<Object>> {

		@Override
		@SuppressWarnings("unchecked")
		public <K, V> List<Object> execute(RedisOperations<K, V> operations) {
			RedisOperations<String, String> strings = (RedisOperations<String, String>) operations;
			strings.multi();
			strings.opsForValue().increment(this.key + ":tx");
			return strings.exec();
		}

	}

}
