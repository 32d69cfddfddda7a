package io.github.lettucetuning.eventloop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.RedisClient;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.Disposable;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cache.Cache;
import org.springframework.context.ApplicationContext;
import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.ReactiveRedisMessageListenerContainer;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Application patterns that run code on a Lettuce event loop, each making a synchronous
 * {@code INCR} from there, on stock Spring Boot and on the starter in every mode, against
 * a real server: a reactive Pub/Sub subscriber, a listener container given a
 * {@link SyncTaskExecutor}, a {@code Cache.retrieve} value loader (what
 * {@code @Cacheable(sync = true)} on a method returning {@code CompletableFuture} does),
 * and a Lettuce push listener. Where the loop that runs the code is not the one that
 * serves the shared connection, stock completes every call and so must the starter; where
 * it is the same loop, stock hangs until the command timeout, and the starter refuses at
 * once (shared mode) or uses a member another loop serves (multi mode).
 */
@RedisStandaloneTest
@Timeout(180)
@ExtendWith(OutputCaptureExtension.class)
class SynchronousCallsOnEventLoopsIntegrationTests {

	private static final int CALLS = 20;

	private static final String SHARED_NAME = "imperative-shared";

	private static final String COUNTER = "calls";

	private final RedisStandalone redis;

	SynchronousCallsOnEventLoopsIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	@AfterEach
	void prepare() {
		this.redis.node().command("FLUSHALL");
		BlockingCallGuard.forgetCallSites();
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(LoopPattern.class)
	void onAnotherLoopStockAndTheStarterCompleteEveryCall(LoopPattern pattern, CapturedOutput output) {
		List<Outcome> stock = new ArrayList<>();
		stock().run((context) -> stock.addAll(runPlaced(context, pattern, false)));
		prepare();
		assertThat(stock).as("stock Boot")
			.hasSize(CALLS)
			.allSatisfy((outcome) -> assertThat(outcome.failure()).isNull());
		tuned().run((context) -> {
			List<Outcome> outcomes = runPlaced(context, pattern, false);
			assertThat(outcomes).hasSize(CALLS).allSatisfy((outcome) -> assertThat(outcome.failure()).isNull());
			assertThat(this.redis.node().commandAsString("GET", COUNTER)).isEqualTo(Integer.toString(CALLS));
		});
		assertThat(countOf(output.getOut() + output.getErr(), "Logged once for this call site")).isOne();
		assertThat(output).contains("runs on lettuce-").contains("publishOn(Schedulers.boundedElastic())");
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(LoopPattern.class)
	void onTheSameLoopTheStarterRefusesAtOnceAndSendsNothing(LoopPattern pattern) {
		tuned().run((context) -> {
			List<Outcome> outcomes = runPlaced(context, pattern, true);
			assertThat(outcomes).hasSize(CALLS)
				.allSatisfy((outcome) -> assertThat(outcome.failure()).isInstanceOf(BlockingCallRefusedException.class)
					.hasMessageContaining("could never complete")
					.hasMessageContaining("ran on lettuce-"));
			// The first call also loads the classes that word the message.
			assertThat(outcomes.subList(1, CALLS))
				.allSatisfy((outcome) -> assertThat(outcome.took()).isLessThan(Duration.ofMillis(100)));
			assertThat(this.redis.node().command("GET", COUNTER)).isNull();
		});
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(LoopPattern.class)
	void inMultiModeACallOnAnyLoopCompletesOnAMemberAnotherLoopServes(LoopPattern pattern) {
		tuned().withPropertyValues("lettuce.tuning.connection.mode=multi", "lettuce.tuning.connection.multi.size=2")
			.run((context) -> {
				// Members open on first use, taking turns: both are open before the
				// pattern
				// runs, each on a loop of its own.
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				for (int i = 0; i < 4; i++) {
					template.hasKey("warm-up");
				}
				LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
				assertThat(factory.getSharedConnections()).hasSize(2);
				List<Outcome> outcomes;
				try (LoopCaller caller = pattern.start(context)) {
					outcomes = caller.call(CALLS);
				}
				assertThat(outcomes).hasSize(CALLS).allSatisfy((outcome) -> assertThat(outcome.failure()).isNull());
				assertThat(this.redis.node().commandAsString("GET", COUNTER)).isEqualTo(Integer.toString(CALLS));
			});
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(LoopPattern.class)
	void inPooledModeEveryCallCompletesOrIsRefusedAtOnce(LoopPattern pattern) {
		tuned()
			.withPropertyValues("lettuce.tuning.connection.mode=pooled", "spring.data.redis.lettuce.pool.max-active=4",
					"spring.data.redis.lettuce.pool.min-idle=4", "lettuce.tuning.connection.pool.prewarm=true")
			.run((context) -> {
				List<Outcome> outcomes;
				try (LoopCaller caller = pattern.start(context)) {
					outcomes = caller.call(CALLS);
				}
				assertThat(outcomes).hasSize(CALLS).allSatisfy((outcome) -> {
					assertThat(outcome.took()).isLessThan(Duration.ofSeconds(1));
					if (outcome.failure() != null) {
						assertThat(outcome.failure()).isInstanceOf(BlockingCallRefusedException.class);
					}
				});
				long completed = outcomes.stream().filter((outcome) -> outcome.failure() == null).count();
				Object counted = this.redis.node().command("GET", COUNTER);
				assertThat((counted != null) ? Long.parseLong(counted.toString()) : 0).isEqualTo(completed);
			});
	}

	private List<Outcome> runPlaced(ApplicationContext context, LoopPattern pattern, boolean sameLoop)
			throws Exception {
		try (LoopCaller caller = pattern.start(context)) {
			placeSharedConnection(context, caller.loop(), sameLoop);
			return caller.call(CALLS);
		}
	}

	// Lettuce hands each new channel the next event loop in turn: the shared connection
	// is killed until its reconnect lands where the test wants it, beside the loop that
	// runs the pattern's code or away from it.
	private void placeSharedConnection(ApplicationContext context, String patternLoop, boolean sameLoop)
			throws Exception {
		LettuceConnectionFactory factory = context.getBean(LettuceConnectionFactory.class);
		for (int attempt = 0; attempt < 16; attempt++) {
			StatefulRedisConnection<byte[], byte[]> shared = sharedConnection(context, factory);
			shared.sync().clientSetname(SHARED_NAME.getBytes());
			if (LoopPlacement.loopOf(shared).equals(patternLoop) == sameLoop) {
				return;
			}
			Faults.killClients(this.redis.node(), SHARED_NAME);
			await().atMost(Duration.ofSeconds(5)).until(shared::isOpen);
			await().atMost(Duration.ofSeconds(5)).ignoreExceptions().until(() -> shared.sync().ping().equals("PONG"));
		}
		throw new AssertionError("The shared connection never reached the wanted event loop");
	}

	// The shared connection as the application's template uses it: stock Boot's one
	// shared connection is Spring Data's; the starter's set has it as its only member.
	@SuppressWarnings("unchecked")
	private static StatefulRedisConnection<byte[], byte[]> sharedConnection(ApplicationContext context,
			LettuceConnectionFactory factory) {
		context.getBean(StringRedisTemplate.class).hasKey("warm-up");
		if (factory instanceof LettuceTuningConnectionFactory tuned) {
			return (StatefulRedisConnection<byte[], byte[]>) tuned.getSharedConnections().get(0);
		}
		try (RedisConnection connection = factory.getConnection()) {
			return ((RedisAsyncCommands<byte[], byte[]>) connection.getNativeConnection()).getStatefulConnection();
		}
	}

	private static int countOf(String text, String part) {
		Matcher matcher = Pattern.compile(Pattern.quote(part)).matcher(text);
		int count = 0;
		while (matcher.find()) {
			count++;
		}
		return count;
	}

	private ApplicationContextRunner tuned() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "spring.data.redis.timeout=2s");
	}

	// One shared imperative connection, as in the starter's default mode: with
	// commons-pool2 present, stock Boot would pool the imperative commands.
	private ApplicationContextRunner stock() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "spring.data.redis.timeout=2s",
					"spring.data.redis.lettuce.pool.enabled=false");
	}

	/**
	 * How a call went: how long the synchronous call took and what it threw.
	 */
	record Outcome(Duration took, @Nullable Throwable failure) {

		static Outcome of(Runnable call) {
			long start = System.nanoTime();
			try {
				call.run();
				return new Outcome(Duration.ofNanos(System.nanoTime() - start), null);
			}
			catch (RuntimeException ex) {
				return new Outcome(Duration.ofNanos(System.nanoTime() - start), ex);
			}
		}

	}

	/**
	 * Application code that runs on one event loop and makes a synchronous call there.
	 */
	interface LoopCaller extends AutoCloseable {

		/**
		 * The event loop the code runs on, found by running it once without the call.
		 * @return the loop's thread name
		 */
		String loop() throws Exception;

		/**
		 * Run the code a number of times, each making one synchronous {@code INCR}.
		 * @param calls how many times
		 * @return how each call went, on the loop
		 */
		List<Outcome> call(int calls) throws Exception;

		@Override
		void close();

	}

	/**
	 * The patterns.
	 */
	enum LoopPattern {

		REACTIVE_SUBSCRIBER {
			@Override
			LoopCaller start(ApplicationContext context) throws Exception {
				ReactiveRedisMessageListenerContainer container = new ReactiveRedisMessageListenerContainer(
						context.getBean(ReactiveRedisConnectionFactory.class));
				Messages messages = new Messages(context);
				Disposable subscription = container.receiveLater(ChannelTopic.of(CHANNEL))
					.block(Duration.ofSeconds(5))
					.subscribe((message) -> messages.received(message.getMessage()));
				return messages.closing(() -> {
					subscription.dispose();
					container.destroy();
				});
			}
		},

		LISTENER_CONTAINER_ON_SYNC_EXECUTOR {
			@Override
			LoopCaller start(ApplicationContext context) throws Exception {
				RedisMessageListenerContainer container = new RedisMessageListenerContainer();
				container.setConnectionFactory(context.getBean(RedisConnectionFactory.class));
				container.setTaskExecutor(new SyncTaskExecutor());
				Messages messages = new Messages(context);
				container.addMessageListener((message, pattern) -> messages.received(new String(message.getBody())),
						ChannelTopic.of(CHANNEL));
				container.afterPropertiesSet();
				container.start();
				return messages.closing(() -> {
					container.stop();
					try {
						container.destroy();
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				});
			}
		},

		CACHE_RETRIEVE_WITH_FUTURE_LOADER {
			@Override
			LoopCaller start(ApplicationContext context) {
				Cache cache = RedisCacheManager.create(context.getBean(RedisConnectionFactory.class)).getCache("loop");
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				return new LoopCaller() {

					private int key;

					@Override
					public String loop() throws Exception {
						for (int attempt = 0; attempt < 100; attempt++) {
							String thread = onLoop(() -> null).thread();
							if (thread.startsWith("lettuce-")) {
								return thread;
							}
						}
						throw new AssertionError("No value loader ran on an event loop");
					}

					@Override
					public List<Outcome> call(int calls) throws Exception {
						List<Outcome> outcomes = new ArrayList<>();
						while (outcomes.size() < calls) {
							Loaded loaded = onLoop(() -> onALoop()
									? Outcome.of(() -> template.opsForValue().increment(COUNTER)) : null);
							if (loaded.outcome() != null) {
								outcomes.add(loaded.outcome());
							}
						}
						return outcomes;
					}

					// On a miss Spring Data runs the loader where the GET completed: the
					// reactive connection's loop, unless the reply beat the composition.
					private Loaded onLoop(Supplier<@Nullable Outcome> work) throws Exception {
						AtomicReference<Loaded> loaded = new AtomicReference<>();
						CompletableFuture<?> value = cache.retrieve("key-" + this.key++, () -> {
							loaded.set(new Loaded(Thread.currentThread().getName(), work.get()));
							return CompletableFuture.completedFuture("v");
						});
						value.get(10, TimeUnit.SECONDS);
						return loaded.get();
					}

					@Override
					public void close() {
					}

				};
			}
		},

		PUSH_LISTENER {
			@Override
			LoopCaller start(ApplicationContext context) {
				RedisClient client = (RedisClient) context.getBean(LettuceConnectionFactory.class).getNativeClient();
				StatefulRedisConnection<String, String> tracking = client.connect(StringCodec.UTF8);
				Messages messages = new Messages(context);
				tracking.addListener((push) -> {
					if ("invalidate".equals(push.getType())) {
						messages.received(String.valueOf(push.getContent(StringCodec.UTF8::decodeValue).get(1)));
					}
				});
				tracking.sync().clientTracking(TrackingArgs.Builder.enabled());
				return messages.closing(tracking::close).sending((message) -> {
					String key = "tracked-" + message;
					tracking.sync().get(key);
					context.getBean(StringRedisTemplate.class).opsForValue().set(key, "v");
				});
			}
		};

		static final String CHANNEL = "loop-calls";

		abstract LoopCaller start(ApplicationContext context) throws Exception;

	}

	private record Loaded(String thread, @Nullable Outcome outcome) {

	}

	private static boolean onALoop() {
		return Thread.currentThread().getName().startsWith("lettuce-");
	}

	/**
	 * Code run per message received on a loop: a probe notes the loop, any other message
	 * makes the call.
	 */
	static final class Messages implements LoopCaller {

		private final StringRedisTemplate template;

		private final RedisStandaloneSender defaultSender;

		private final BlockingQueue<String> probes = new LinkedBlockingQueue<>();

		private final BlockingQueue<Outcome> outcomes = new LinkedBlockingQueue<>();

		private Runnable onClose = () -> {
		};

		private RedisStandaloneSender sender;

		private int sent;

		Messages(ApplicationContext context) {
			this.template = context.getBean(StringRedisTemplate.class);
			this.defaultSender = (message) -> this.template.convertAndSend(LoopPattern.CHANNEL, message);
			this.sender = this.defaultSender;
		}

		Messages closing(Runnable onClose) {
			this.onClose = onClose;
			return this;
		}

		Messages sending(RedisStandaloneSender sender) {
			this.sender = sender;
			return this;
		}

		void received(String message) {
			if (message.contains("probe")) {
				this.probes.add(Thread.currentThread().getName());
			}
			else {
				this.outcomes.add(Outcome.of(() -> this.template.opsForValue().increment(COUNTER)));
			}
		}

		@Override
		public String loop() throws Exception {
			String thread = null;
			for (int attempt = 0; attempt < 50 && thread == null; attempt++) {
				this.sender.send("probe-" + this.sent++);
				thread = this.probes.poll(200, TimeUnit.MILLISECONDS);
			}
			assertThat(thread).as("the loop that runs the listener").isNotNull().startsWith("lettuce-");
			this.probes.clear();
			return thread;
		}

		@Override
		public List<Outcome> call(int calls) throws Exception {
			loop();
			List<Outcome> received = new ArrayList<>();
			for (int i = 0; i < calls; i++) {
				this.sender.send("call-" + this.sent++);
				Outcome outcome = this.outcomes.poll(10, TimeUnit.SECONDS);
				assertThat(outcome).as("call " + i + " ran").isNotNull();
				received.add(outcome);
			}
			return received;
		}

		@Override
		public void close() {
			this.onClose.run();
		}

	}

	/**
	 * Sends one message that makes the pattern's code run.
	 */
	@FunctionalInterface
	interface RedisStandaloneSender {

		void send(String message) throws Exception;

	}

}
