package io.github.lettucetuning.cluster;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.lettucetuning.testsupport.server.RedisNode;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.PatternTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link RedisMessageListenerContainer} subscribed to a channel, a pattern and keyspace
 * notifications, fed by a thread that publishes numbered messages every 20 ms through the
 * application's template, so a fault test can tell which messages were lost and when.
 * <p>
 * <b>Recovery</b> is the start of the first publication after the fault whose
 * {@code PUBLISH} succeeded, with at least one receiver where the server counts them for
 * the whole deployment (not in a cluster, where {@code PUBLISH} counts the receivers of
 * the node it ran on only). Every message published 2 s or more after recovery must
 * arrive.
 */
final class SubscriptionProbe implements AutoCloseable {

	static final String CHANNEL = "probe:channel";

	static final String PATTERN = "probe:pattern:*";

	static final String PATTERN_CHANNEL = "probe:pattern:1";

	static final String KEY_PREFIX = "probe:key:";

	static final String KEYSPACE_PATTERN = "__keyspace@0__:" + KEY_PREFIX + "*";

	private static final Duration INTERVAL = Duration.ofMillis(20);

	private static final Duration SETTLE = Duration.ofSeconds(2);

	private final StringRedisTemplate template;

	private final boolean countsReceivers;

	private final RedisMessageListenerContainer container;

	private final Map<Kind, Set<Long>> received = new ConcurrentHashMap<>();

	// Publication start time by sequence number, for the publications that succeeded.
	private final Map<Long, Long> published = new ConcurrentSkipListMap<>();

	private final Map<Long, Long> withReceivers = new ConcurrentSkipListMap<>();

	private final AtomicLong failures = new AtomicLong();

	private final Thread publisher;

	private volatile boolean running = true;

	private SubscriptionProbe(StringRedisTemplate template, RedisMessageListenerContainer container,
			boolean countsReceivers) {
		this.template = template;
		this.container = container;
		this.countsReceivers = countsReceivers;
		for (Kind kind : Kind.values()) {
			this.received.put(kind, ConcurrentHashMap.newKeySet());
		}
		this.publisher = new Thread(this::publish, "subscription-probe");
		this.publisher.setDaemon(true);
	}

	/**
	 * Subscribe, wait until every subscription receives, then start publishing.
	 * @param template the application's template
	 * @param container the application's listener container, started
	 * @param countsReceivers whether {@code PUBLISH} counts every receiver (not in a
	 * cluster)
	 * @param kinds the subscriptions that must receive before the fault
	 * @return the running probe
	 */
	static SubscriptionProbe start(StringRedisTemplate template, RedisMessageListenerContainer container,
			boolean countsReceivers, Kind... kinds) throws InterruptedException {
		SubscriptionProbe probe = new SubscriptionProbe(template, container, countsReceivers);
		container.addMessageListener(probe.listener(Kind.CHANNEL), new ChannelTopic(CHANNEL));
		container.addMessageListener(probe.listener(Kind.PATTERN), new PatternTopic(PATTERN));
		container.addMessageListener(probe.listener(Kind.KEYSPACE), new PatternTopic(KEYSPACE_PATTERN));
		probe.publisher.start();
		probe.awaitReceiving(Duration.ofSeconds(10), kinds);
		return probe;
	}

	/**
	 * Turn keyspace notifications for string commands on, as a fresh or restarted test
	 * server has them off.
	 * @param node the server
	 */
	static void enableKeyspaceNotifications(RedisNode node) {
		node.command("CONFIG", "SET", "notify-keyspace-events", "K$");
	}

	private MessageListener listener(Kind kind) {
		return (Message message, byte[] pattern) -> {
			String text = (kind != Kind.KEYSPACE) ? new String(message.getBody(), StandardCharsets.UTF_8)
					: new String(message.getChannel(), StandardCharsets.UTF_8).substring(KEYSPACE_PATTERN.length() - 1);
			this.received.get(kind).add(Long.parseLong(text));
		};
	}

	private void publish() {
		long sequence = 0;
		while (this.running) {
			sequence++;
			long start = System.nanoTime();
			String value = Long.toString(sequence);
			try {
				Long receivers = this.template.convertAndSend(CHANNEL, value);
				this.template.convertAndSend(PATTERN_CHANNEL, value);
				this.template.opsForValue().set(KEY_PREFIX + value, value, Duration.ofMinutes(1));
				this.published.put(sequence, start);
				if (receivers != null && receivers > 0) {
					this.withReceivers.put(sequence, start);
				}
			}
			catch (RuntimeException ex) {
				this.failures.incrementAndGet();
			}
			try {
				Thread.sleep(INTERVAL.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	private void awaitReceiving(Duration timeout, Kind... kinds) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			if (Arrays.stream(kinds).noneMatch((kind) -> this.received.get(kind).isEmpty())) {
				return;
			}
			Thread.sleep(50);
		}
		throw new AssertionError("Subscriptions received nothing within " + timeout + ": " + counts());
	}

	long now() {
		return System.nanoTime();
	}

	/**
	 * Let the publisher run until {@code duration} after recovery, after a fault that
	 * ended at {@code faultEnded}, then stop it and wait for late deliveries.
	 * @param faultEnded when the fault ended ({@link System#nanoTime()})
	 * @param after how long to publish after recovery
	 * @param timeout how long to wait for a recovery
	 * @return the recovery, as a publication start time
	 */
	long publishUntilAfterRecovery(long faultEnded, Duration after, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		Long recovery = null;
		while (recovery == null && System.nanoTime() < deadline) {
			recovery = recovery(faultEnded);
			if (recovery == null) {
				Thread.sleep(50);
			}
		}
		assertThat(recovery).as("a successful PUBLISH within %s after the fault", timeout).isNotNull();
		while (System.nanoTime() < recovery + after.toNanos()) {
			Thread.sleep(50);
		}
		return recovery;
	}

	private Long recovery(long faultEnded) {
		Map<Long, Long> source = this.countsReceivers ? this.withReceivers : this.published;
		return source.values().stream().filter((start) -> start >= faultEnded).findFirst().orElse(null);
	}

	/**
	 * Check that every message published {@link #SETTLE} or more after recovery arrived,
	 * waiting a little for the last ones, and report the gap.
	 * @param scenario the scenario, for the report
	 * @param faultStarted when the fault started
	 * @param recovery the recovery from {@link #publishUntilAfterRecovery}
	 * @param kinds the subscriptions to check
	 */
	void assertEveryMessageAfterRecovery(String scenario, long faultStarted, long recovery, Kind... kinds)
			throws InterruptedException {
		stopPublishing();
		List<Long> due = this.published.entrySet()
			.stream()
			.filter((entry) -> entry.getValue() >= recovery + SETTLE.toNanos())
			.map(Map.Entry::getKey)
			.toList();
		assertThat(due).as("messages published %s after recovery", SETTLE).hasSizeGreaterThan(20);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
		while (System.nanoTime() < deadline && !allReceived(due, kinds)) {
			Thread.sleep(50);
		}
		StringBuilder report = new StringBuilder();
		for (Kind kind : kinds) {
			report.append(' ')
				.append(kind.name().toLowerCase(Locale.ROOT))
				.append("-gap=")
				.append(gap(kind, faultStarted));
		}
		System.out.printf(Locale.ROOT, "[subscriptions] %s: recovery=%s after fault, published=%d failed=%d%s%n",
				scenario, FaultLoad.seconds(Duration.ofNanos(recovery - faultStarted)), this.published.size(),
				this.failures.get(), report);
		for (Kind kind : kinds) {
			Set<Long> missing = new TreeSet<>(due);
			missing.removeAll(this.received.get(kind));
			assertThat(missing).as("%s messages published 2 s or more after recovery and not received", kind).isEmpty();
		}
	}

	private boolean allReceived(List<Long> due, Kind... kinds) {
		for (Kind kind : kinds) {
			if (!this.received.get(kind).containsAll(due)) {
				return false;
			}
		}
		return true;
	}

	// The published messages from the fault on that never arrived: their number and the
	// time from the fault to the last of them.
	private String gap(Kind kind, long faultStarted) {
		List<Long> lost = new ArrayList<>();
		long last = faultStarted;
		for (Map.Entry<Long, Long> entry : this.published.entrySet()) {
			if (entry.getValue() >= faultStarted && !this.received.get(kind).contains(entry.getKey())) {
				lost.add(entry.getKey());
				last = Math.max(last, entry.getValue());
			}
		}
		return lost.size() + " lost, last " + FaultLoad.seconds(Duration.ofNanos(last - faultStarted)) + " after fault";
	}

	/**
	 * Whether a message published from now on reaches the given subscription within the
	 * timeout.
	 * @param kind the subscription
	 * @param timeout how long to wait
	 * @return whether it arrived
	 */
	boolean receivesNewMessages(Kind kind, Duration timeout) throws InterruptedException {
		long from = this.published.keySet().stream().mapToLong(Long::longValue).max().orElse(0) + 1;
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			if (this.received.get(kind).stream().anyMatch((sequence) -> sequence >= from)) {
				return true;
			}
			Thread.sleep(50);
		}
		return false;
	}

	String counts() {
		StringBuilder counts = new StringBuilder("published=" + this.published.size());
		this.received.forEach((kind, values) -> counts.append(' ').append(kind).append('=').append(values.size()));
		return counts.toString();
	}

	private void stopPublishing() throws InterruptedException {
		this.running = false;
		this.publisher.join(TimeUnit.SECONDS.toMillis(10));
		assertThat(this.publisher.isAlive()).as("publisher still running: a command hangs").isFalse();
	}

	@Override
	public void close() throws InterruptedException {
		stopPublishing();
	}

	/**
	 * The listener container as an application declares it.
	 */
	@Configuration(proxyBeanMethods = false)
	static class ListenerContainerConfiguration {

		@Bean
		RedisMessageListenerContainer redisMessageListenerContainer(RedisConnectionFactory connectionFactory) {
			RedisMessageListenerContainer container = new RedisMessageListenerContainer();
			container.setConnectionFactory(connectionFactory);
			return container;
		}

	}

	/**
	 * A subscription of the probe.
	 */
	enum Kind {

		CHANNEL, PATTERN, KEYSPACE

	}

}
