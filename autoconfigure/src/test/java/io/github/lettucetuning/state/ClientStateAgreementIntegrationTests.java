package io.github.lettucetuning.state;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;

import io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport;
import io.github.lettucetuning.endpoint.LettuceDescriptor;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.eventloop.LoopPlacement;
import io.github.lettucetuning.health.LettuceHealthIndicator;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code redis} health, the {@code lettuce.tuning.*} meters and the {@code lettuce}
 * endpoint tell one story, against a real server: while the application blocks an event
 * loop, while Redis is frozen, while it refuses the client's credentials and while a
 * subscription is lost, the three are read one after the other and name the same loop,
 * the same servers, the same subscription, and the {@link ClientState} they read says who
 * is at fault.
 */
@RedisStandaloneTest(aclUsers = "app:s3cret")
@Timeout(120)
class ClientStateAgreementIntegrationTests {

	private static final String CLIENT_NAME = "one-story";

	private final RedisStandalone redis;

	ClientStateAgreementIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void prepare() {
		this.redis.node().command("FLUSHALL");
	}

	@AfterEach
	void restore() {
		Faults.recover(this.redis.node());
		this.redis.node().command("ACL", "SETUSER", "app", "allchannels");
	}

	@Test
	void aBlockedEventLoopIsTheApplicationsFaultForAllThree() {
		// A command timeout well above the block: a loop blocked past it is another
		// fault.
		contextRunner()
			.withPropertyValues("lettuce.tuning.health.timeout=500ms", "spring.data.redis.timeout=20s",
					"lettuce.tuning.resilience.blocked-loop-detection.threshold=300ms")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				template.opsForValue().set("slow", "v");
				ReactiveStringRedisTemplate reactive = new ReactiveStringRedisTemplate(
						context.getBean(ReactiveRedisConnectionFactory.class));
				String loop = LoopPlacement.placeReactiveConnection(this.redis.node(), template, reactive, "slow",
						true);
				List<Thread> workers = LoopPlacement.startWorkers(template, 4, new CopyOnWriteArrayList<>(),
						Duration.ofSeconds(8));
				CompletableFuture<String> block = reactive.opsForValue().get("slow").map((value) -> {
					sleep(Duration.ofSeconds(6));
					return value;
				}).toFuture();
				awaitFault(context, ClientState.Fault.EVENT_LOOP_BLOCKED, Duration.ofSeconds(5));
				Reports reports = Reports.read(context);
				assertThat(block).as("the loop still blocked once all three were read").isNotDone();
				assertThat(reports.state().fault()).isEqualTo(ClientState.Fault.EVENT_LOOP_BLOCKED);
				assertThat(reports.health().getStatus()).as(reports.health().getDetails().toString())
					.isEqualTo(Status.UP);
				List<String> threads = reports.state()
					.blockedLoops()
					.stream()
					.map(ClientState.BlockedLoop::thread)
					.toList();
				assertThat(threads).containsExactly(loop);
				assertThat(reports.healthList("blockedEventLoops", "thread")).isEqualTo(threads);
				ClientState.EventLoops shown = reports.endpoint().state().eventLoops();
				assertThat(shown).isNotNull();
				assertThat(shown.blocked()).extracting(ClientState.BlockedLoop::thread).isEqualTo(threads);
				assertThat(reports.gauge("lettuce.tuning.event.loops.blocked")).isEqualTo(threads.size());
				assertThat(reports.counter("lettuce.tuning.event.loop.blocked")).isEqualTo(shown.blockedSpells())
					.isOne();
				assertThat(block).succeedsWithin(Duration.ofSeconds(15));
				LoopPlacement.join(workers);
			});
	}

	@Test
	void aFrozenRedisIsRedisFaultForAllThree() {
		contextRunner().withPropertyValues("lettuce.tuning.resilience.stall-detection.timeout=1s").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("warm", "up");
			Faults.pause(this.redis.node());
			CompletableFuture<Void> waiting = CompletableFuture
				.runAsync(() -> template.opsForValue().set("written", "x"));
			awaitFault(context, ClientState.Fault.REDIS_UNREACHABLE, Duration.ofSeconds(10));
			Reports reports = Reports.read(context);
			assertThat(reports.state().fault()).isEqualTo(ClientState.Fault.REDIS_UNREACHABLE);
			assertThat(reports.health().getStatus()).isEqualTo(Status.DOWN);
			assertSameOutages(reports);
			assertThat(reports.state().unreachable()).isNotEmpty()
				.allSatisfy((outage) -> assertThat(outage.rejection()).isNull());
			Faults.resume(this.redis.node());
			assertThat(waiting).failsWithin(Duration.ofSeconds(10));
			awaitFault(context, ClientState.Fault.NONE, Duration.ofSeconds(15));
			Reports healed = Reports.read(context);
			assertThat(healed.health().getStatus()).isEqualTo(Status.UP);
			assertSameOutages(healed);
		});
	}

	@Test
	void refusedCredentialsAreTheCredentialsFaultForAllThree() {
		String password = "Before-" + System.nanoTime();
		this.redis.node().command("ACL", "SETUSER", "victim", "reset", "on", ">" + password, "~*", "&*", "+@all");
		try {
			contextRunner()
				.withPropertyValues("spring.data.redis.username=victim", "spring.data.redis.password=" + password,
						"lettuce.tuning.resilience.fail-fast.grace=1s")
				.run((context) -> {
					StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
					template.opsForValue().set("victim", "ok");
					this.redis.node().command("ACL", "SETUSER", "victim", "resetpass", ">After-" + System.nanoTime());
					assertThat(Faults.killClients(this.redis.node(), CLIENT_NAME)).isPositive();
					awaitFault(context, ClientState.Fault.CREDENTIALS_REFUSED, Duration.ofSeconds(15));
					Reports reports = Reports.read(context);
					assertThat(reports.state().fault()).isEqualTo(ClientState.Fault.CREDENTIALS_REFUSED);
					assertThat(reports.health().getStatus()).isEqualTo(Status.DOWN);
					assertThat(String.valueOf(reports.health().getDetails().get("error")))
						.contains("refuses the credentials of user 'victim'");
					assertSameOutages(reports);
					List<String> rejections = reports.state()
						.unreachable()
						.stream()
						.map(ClientState.Outage::rejection)
						.toList();
					assertThat(rejections).isNotEmpty()
						.allSatisfy((rejection) -> assertThat(rejection).contains("user 'victim'"));
					assertThat(reports.healthList("unreachable", "rejected")).isEqualTo(rejections);
					assertThat(reports.endpoint().state().outages().unreachable())
						.extracting(ClientState.Outage::rejection)
						.isEqualTo(rejections);
					assertThat(reports.endpoint().state().credentials().user()).isEqualTo("victim");
				});
		}
		finally {
			this.redis.node().command("ACL", "DELUSER", "victim");
		}
	}

	@Test
	void aLostSubscriptionIsReportedAliveByAllThree() {
		contextRunner().withPropertyValues("spring.data.redis.username=app", "spring.data.redis.password=s3cret")
			.withUserConfiguration(ListenerContainer.class)
			.run((context) -> {
				RedisMessageListenerContainer container = context.getBean(RedisMessageListenerContainer.class);
				BlockingQueue<String> received = new LinkedBlockingQueue<>();
				container.addMessageListener(
						(message, pattern) -> received.add(new String(message.getBody(), StandardCharsets.UTF_8)),
						new ChannelTopic("story:revoked"));
				await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
					this.redis.node().command("PUBLISH", "story:revoked", "before");
					assertThat(received).contains("before");
				});
				// Redis disconnects the subscriber; Lettuce reconnects and may not
				// subscribe again.
				this.redis.node().command("ACL", "SETUSER", "app", "resetchannels", "&story:kept:*");
				awaitFault(context, ClientState.Fault.SUBSCRIPTIONS_UNRESTORED, Duration.ofSeconds(20));
				Reports reports = Reports.read(context);
				assertThat(reports.state().fault()).isEqualTo(ClientState.Fault.SUBSCRIPTIONS_UNRESTORED);
				assertThat(reports.health().getStatus()).isEqualTo(Status.UP);
				List<String> unrestored = reports.state()
					.subscriptions()
					.unrestored()
					.stream()
					.map(ClientState.Unrestored::subscription)
					.toList();
				assertThat(unrestored).containsExactly("channel story:revoked");
				assertThat(reports.healthList("unrestoredSubscriptions", "subscription")).isEqualTo(unrestored);
				ClientState.Subscriptions shown = reports.endpoint().state().subscriptions();
				assertThat(shown.unrestored()).extracting(ClientState.Unrestored::subscription).isEqualTo(unrestored);
				assertThat(reports.gauge("lettuce.tuning.subscriptions.unrestored")).isEqualTo(unrestored.size());
				assertThat(reports.counter("lettuce.tuning.subscriptions.lost")).isEqualTo(shown.lost()).isOne();
				assertSameOutages(reports);
			});
	}

	// The servers the health lists as unreachable are those the endpoint lists, and the
	// gauge counts them.
	private static void assertSameOutages(Reports reports) {
		List<String> servers = reports.state().unreachable().stream().map(ClientState.Outage::server).toList();
		assertThat(reports.healthList("unreachable", "server")).isEqualTo(servers);
		ClientState.Outages shown = reports.endpoint().state().outages();
		assertThat(shown).isNotNull();
		assertThat(shown.unreachable()).extracting(ClientState.Outage::server).isEqualTo(servers);
		assertThat(reports.gauge("lettuce.tuning.connections.unreachable")).isEqualTo(servers.size());
	}

	private static void awaitFault(ApplicationContext context, ClientState.Fault fault, Duration within) {
		ClientStateReader reader = context.getBean(ClientStateReader.class);
		await().atMost(within)
			.pollInterval(Duration.ofMillis(50))
			.untilAsserted(() -> assertThat(reader.read().fault()).isEqualTo(fault));
	}

	private ApplicationContextRunner contextRunner() {
		return ObservabilityIntegrationSupport.contextRunner(CLIENT_NAME)
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "spring.data.redis.client-name=" + CLIENT_NAME);
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * The state, the health, the endpoint and the meters, read one right after the other.
	 */
	private record Reports(ClientState state, Health health, LettuceDescriptor endpoint, MeterRegistry meters) {

		static Reports read(ApplicationContext context) {
			ClientState state = context.getBean(ClientStateReader.class).read();
			Health health = context.getBean(LettuceHealthIndicator.class).health();
			LettuceDescriptor endpoint = context.getBean(LettuceEndpoint.class).lettuce();
			return new Reports(state, health, endpoint, context.getBean(MeterRegistry.class));
		}

		@SuppressWarnings("unchecked")
		List<Object> healthList(String detail, String key) {
			Object entries = this.health.getDetails().get(detail);
			if (!(entries instanceof List<?> list)) {
				return List.of();
			}
			return list.stream().map((entry) -> ((Map<String, Object>) entry).get(key)).toList();
		}

		double gauge(String name) {
			return this.meters.get(name).gauge().value();
		}

		double counter(String name) {
			return this.meters.get(name).functionCounter().count();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ListenerContainer {

		@Bean
		RedisMessageListenerContainer redisMessageListenerContainer(RedisConnectionFactory connectionFactory) {
			RedisMessageListenerContainer container = new RedisMessageListenerContainer();
			container.setConnectionFactory(connectionFactory);
			return container;
		}

	}

}
