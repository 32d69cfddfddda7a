package io.github.lettucetuning.eventloop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Where the shared connections of a test's application sit on the client's event loops,
 * how to move the reactive one, and the load the blocked-loop tests run beside a block.
 */
public final class LoopPlacement {

	private LoopPlacement() {
	}

	/**
	 * Reopen the reactive shared connection until it sits on the imperative one's event
	 * loop, or on another. Lettuce hands each new channel the next loop in turn, and the
	 * reactive connection opens last, so killing it moves its reconnect on: the issue's
	 * users found both connections on one loop after such a reconnect.
	 * @param node the server
	 * @param template the application's template
	 * @param reactive a reactive template on the application's factory
	 * @param key a key that holds a value
	 * @param sameLoop whether the reactive connection should share the imperative one's
	 * loop
	 * @return the imperative connection's loop
	 */
	public static String placeReactiveConnection(RedisNode node, StringRedisTemplate template,
			ReactiveStringRedisTemplate reactive, String key, boolean sameLoop) throws Exception {
		String imperativeLoop = imperativeLoop(template);
		for (int attempt = 0; attempt < 16; attempt++) {
			String reactiveLoop = reactive.opsForValue()
				.get(key)
				.map((value) -> Thread.currentThread().getName())
				.defaultIfEmpty("")
				.map((ignored) -> Thread.currentThread().getName())
				.block(Duration.ofSeconds(5));
			if (reactiveLoop.startsWith("lettuce-") && reactiveLoop.equals(imperativeLoop) == sameLoop) {
				return imperativeLoop;
			}
			ClientInfo newest = node.clientList()
				.stream()
				.filter((client) -> !client.name().equals(RedisNode.ADMIN_CLIENT_NAME))
				.max(Comparator.comparingLong(ClientInfo::id))
				.orElseThrow();
			Faults.killClients(node, Long.toString(newest.id()));
			await().atMost(Duration.ofSeconds(5))
				.ignoreExceptions()
				.until(() -> reactive.opsForValue().get(key).defaultIfEmpty("").block(Duration.ofSeconds(1)) != null);
		}
		throw new AssertionError("The reactive connection never reached the wanted event loop");
	}

	/**
	 * Return the event loop of the imperative shared connection: the thread a command's
	 * callback runs on when the command completes.
	 * @param template the application's template
	 * @return the loop's thread name
	 */
	public static String imperativeLoop(StringRedisTemplate template) throws Exception {
		StatefulConnection<?, ?> connection = template.execute(
				(RedisCallback<StatefulConnection<?, ?>>) (redis) -> statefulConnection(redis.getNativeConnection()));
		assertThat(connection).isNotNull();
		return loopOf(connection);
	}

	/**
	 * Return the event loop that serves a connection: the thread that completes a PING
	 * whose callback was attached before the PING was written, so that the reply cannot
	 * beat it and run it on the caller.
	 * @param connection the connection
	 * @return the loop's thread name
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public static String loopOf(StatefulConnection<?, ?> connection) throws Exception {
		AsyncCommand<byte[], byte[], String> ping = new AsyncCommand<>(
				new Command<>(CommandType.PING, new StatusOutput<>(ByteArrayCodec.INSTANCE)));
		CompletableFuture<String> thread = ping.thenApply((pong) -> Thread.currentThread().getName());
		((StatefulConnection) connection).dispatch(ping);
		String name = thread.get(5, TimeUnit.SECONDS);
		assertThat(name).as("the thread that completed a PING").startsWith("lettuce-");
		return name;
	}

	private static StatefulConnection<?, ?> statefulConnection(Object nativeConnection) {
		if (nativeConnection instanceof RedisAsyncCommands<?, ?> standalone) {
			return standalone.getStatefulConnection();
		}
		return ((RedisAdvancedClusterAsyncCommands<?, ?>) nativeConnection).getStatefulConnection();
	}

	/**
	 * Start threads that SET and GET a key of their own, checking each value, for a
	 * while.
	 * @param template the application's template
	 * @param threads how many threads
	 * @param failures where each failure goes
	 * @param duration how long they run
	 * @return the threads
	 */
	public static List<Thread> startWorkers(StringRedisTemplate template, int threads, List<Throwable> failures,
			Duration duration) {
		long end = System.nanoTime() + duration.toNanos();
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			String key = "key-" + t;
			Thread worker = new Thread(() -> {
				long i = 0;
				while (System.nanoTime() < end) {
					try {
						template.opsForValue().set(key, Long.toString(i));
						assertThat(template.opsForValue().get(key)).isEqualTo(Long.toString(i));
						i++;
					}
					catch (RuntimeException | AssertionError ex) {
						failures.add(ex);
					}
				}
			}, "worker-" + t);
			worker.start();
			workers.add(worker);
		}
		return workers;
	}

	/**
	 * Wait for threads to end, and fail if one does not within a minute.
	 * @param threads the threads
	 */
	public static void join(List<Thread> threads) throws InterruptedException {
		for (Thread thread : threads) {
			thread.join(TimeUnit.SECONDS.toMillis(60));
			assertThat(thread.isAlive()).isFalse();
		}
	}

}
