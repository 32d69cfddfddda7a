package io.github.lettucetuning.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.lettucetuning.resilience.OutageTimeline.Kind;
import io.github.lettucetuning.resilience.OutageTimeline.Outcome;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.fault.NetworkBlackhole;
import io.github.lettucetuning.testsupport.server.RedisNode;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ApplicationContext;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One outage under load, as the issue measures it: 16 threads of SET then GET of their
 * own key through {@link StringRedisTemplate}, the overall health polled four times a
 * second, and Redis stopped or frozen for a while, then back.
 */
final class OutageScenario {

	static final int THREADS = 16;

	private static final Duration WARM_UP = Duration.ofSeconds(2);

	static final Duration OUTAGE = Duration.ofSeconds(8);

	private static final Duration AFTER = Duration.ofSeconds(5);

	private final StringRedisTemplate template;

	private final HealthEndpoint health;

	private final RedisNode node;

	private final Fault fault;

	private final OutageTimeline timeline = new OutageTimeline();

	private final AtomicBoolean running = new AtomicBoolean(true);

	private final Map<Long, Long> pendingHealth = new ConcurrentHashMap<>();

	private final AtomicLong healthRequests = new AtomicLong();

	OutageScenario(ApplicationContext context, RedisNode node, Fault fault) {
		this.template = context.getBean(StringRedisTemplate.class);
		this.health = context.getBean(HealthEndpoint.class);
		this.node = node;
		this.fault = fault;
	}

	OutageTimeline run() throws Exception {
		ExecutorService load = Executors.newFixedThreadPool(THREADS);
		ExecutorService healthRequests = Executors.newCachedThreadPool();
		Thread poller = new Thread(() -> pollHealth(healthRequests), "health-poller");
		try {
			for (int t = 0; t < THREADS; t++) {
				int thread = t;
				load.execute(() -> commands(thread));
			}
			poller.start();
			Thread.sleep(WARM_UP.toMillis());
			this.timeline.outageStartMs = this.timeline.nowMs();
			this.fault.begin(this.node);
			Thread.sleep(OUTAGE.toMillis());
			this.timeline.outageEndMs = this.timeline.nowMs();
			this.fault.end(this.node);
			Thread.sleep(AFTER.toMillis());
		}
		finally {
			this.running.set(false);
			this.fault.end(this.node);
			poller.join(10_000);
			load.shutdown();
			// A stock client may still hold threads for its 60 s command timeout
			load.awaitTermination(90, TimeUnit.SECONDS);
			healthRequests.shutdown();
			healthRequests.awaitTermination(90, TimeUnit.SECONDS);
			this.pendingHealth.values()
				.forEach((start) -> this.timeline.record(Kind.HEALTH, start, Outcome.NO_ANSWER, "no answer"));
		}
		return this.timeline;
	}

	private void commands(int thread) {
		String key = "outage:" + thread;
		long i = 0;
		while (this.running.get()) {
			String value = thread + ":" + (i++);
			long start = this.timeline.now();
			try {
				this.template.opsForValue().set(key, value);
				String read = this.template.opsForValue().get(key);
				this.timeline.record(Kind.COMMAND, start, value.equals(read) ? Outcome.OK : Outcome.MISMATCH,
						value + " read as " + read);
			}
			catch (RuntimeException ex) {
				Throwable cause = NestedExceptionUtils.getMostSpecificCause(ex);
				this.timeline.record(Kind.COMMAND, start, Outcome.FAILED, ex.getClass().getSimpleName() + ": "
						+ ex.getMessage() + " <- " + cause.getClass().getSimpleName() + ": " + cause.getMessage());
			}
			pause(5);
		}
	}

	private void pollHealth(ExecutorService requests) {
		while (this.running.get()) {
			long id = this.healthRequests.incrementAndGet();
			long start = this.timeline.now();
			this.pendingHealth.put(id, start);
			requests.execute(() -> {
				Status status = this.health.health().getStatus();
				if (this.pendingHealth.remove(id) != null) {
					this.timeline.record(Kind.HEALTH, start, Status.UP.equals(status) ? Outcome.UP : Outcome.DOWN,
							status.getCode());
				}
			});
			pause(250);
		}
	}

	private static void pause(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	static List<String> failures(OutageTimeline timeline, int limit) {
		List<String> failures = new ArrayList<>();
		for (OutageTimeline.Event event : timeline.events(Kind.COMMAND, (e) -> e.outcome() != Outcome.OK)) {
			if (failures.size() < limit) {
				failures.add(event.startMs() + " ms +" + event.durationMs() + ": " + event.detail());
			}
		}
		return failures;
	}

	/**
	 * How Redis becomes unreachable.
	 */
	enum Fault {

		/**
		 * The process is killed (the port closes) and started again on the same port.
		 */
		STOP {

			@Override
			void begin(RedisNode node) {
				Faults.kill(node);
			}

			@Override
			void end(RedisNode node) {
				if (!node.isAlive()) {
					node.restart();
				}
			}

		},

		/**
		 * The process is frozen with SIGSTOP (sockets stay open) and continued.
		 */
		FREEZE {

			@Override
			void begin(RedisNode node) {
				Faults.pause(node);
			}

			@Override
			void end(RedisNode node) {
				Faults.resume(node);
			}

		},

		/**
		 * Packets to the server's port are dropped (the host vanished without a reset),
		 * then let through again. Needs root and iptables or nft.
		 */
		BLACKHOLE {

			@Override
			void begin(RedisNode node) {
				blackhole = Faults.blackhole(node);
			}

			@Override
			void end(RedisNode node) {
				NetworkBlackhole current = blackhole;
				if (current != null) {
					current.heal();
				}
				blackhole = null;
			}

		};

		private static volatile @Nullable NetworkBlackhole blackhole;

		abstract void begin(RedisNode node);

		abstract void end(RedisNode node);

	}

}
