package io.github.lettucetuning.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import io.github.lettucetuning.testsupport.chaos.Values;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;

import org.springframework.cache.Cache;

/**
 * The near-cache checker's traffic: readers that read cached keys through
 * {@link Cache#get(Object)}, as {@code @Cacheable} does, an application writer that
 * writes through the same cache's synchronous paths, and a writer outside the
 * applications, each recording into a {@link NearCacheCheck}.
 * <p>
 * The keys are {@value #SLOTS} slots, the first half written by the application, the
 * second by the outside writer, one write per step. A slot's key carries a generation: a
 * write without an acknowledgement retires it (Redis may still run that write later), and
 * the slot goes on with a fresh key, so that every key has one writer and its versions
 * are acknowledged in order. Readers read every slot's current key.
 */
final class NearCacheTraffic {

	/**
	 * The near cache's name; its Redis keys start with {@code nc::}.
	 */
	static final String CACHE = "nc";

	static final int SLOTS = 32;

	private static final Duration WRITE_PACE = Duration.ofMillis(20);

	private static final long READ_PACE_MILLIS = 1;

	// One write in five of the application is a lone evict, which leaves the key absent
	// until its next write; otherwise an evict and a put
	private static final int LONE_EVICTS = 5;

	private final NearCacheCheck check;

	private final long seed;

	private final AtomicIntegerArray generations = new AtomicIntegerArray(SLOTS);

	private final List<Thread> threads = new ArrayList<>();

	private final AtomicLong retired = new AtomicLong();

	private volatile boolean stopped;

	NearCacheTraffic(NearCacheCheck check, long seed) {
		this.check = check;
		this.seed = seed;
	}

	/**
	 * Return a slot's current cache key.
	 * @param slot the slot
	 * @return the cache key (the Redis key is {@code nc::} and this)
	 */
	String cacheKey(int slot) {
		return "s" + slot + "." + this.generations.get(slot);
	}

	static String redisKey(String cacheKey) {
		return CACHE + "::" + cacheKey;
	}

	/**
	 * Write version 1 of every slot through a plain client, before anything reads.
	 * @param outside the plain client's commands
	 */
	void populate(RedisClusterCommands<String, String> outside) {
		for (int slot = 0; slot < SLOTS; slot++) {
			String key = redisKey(cacheKey(slot));
			long issued = System.nanoTime();
			outside.set(key, Values.encode(key, 1));
			this.check.write(new NearCacheCheck.Write(key, 1, NearCacheCheck.WriteKind.PUT, "populate", issued,
					System.nanoTime()));
		}
	}

	void startReaders(String reader, Cache cache, int threads) {
		for (int i = 0; i < threads; i++) {
			SplittableRandom random = new SplittableRandom(this.seed * 31 + this.threads.size());
			start("nc-reader-" + reader + "-" + i, () -> read(reader, cache, random));
		}
	}

	void startApplicationWriter(Cache cache) {
		SplittableRandom random = new SplittableRandom(this.seed);
		start("nc-writer-app", () -> writeLoop(0, SLOTS / 2, new ApplicationWrites(cache, random)));
	}

	void startOutsideWriter(RedisClusterCommands<String, String> outside) {
		SplittableRandom random = new SplittableRandom(this.seed + 1);
		start("nc-writer-outside", () -> writeLoop(SLOTS / 2, SLOTS, new OutsideWrites(outside, random)));
	}

	long retiredKeys() {
		return this.retired.get();
	}

	void stop(Duration timeout) throws InterruptedException {
		this.stopped = true;
		long deadline = System.nanoTime() + timeout.toNanos();
		for (Thread thread : this.threads) {
			thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
			if (thread.isAlive()) {
				throw new IllegalStateException(thread.getName() + " still runs " + timeout + " after the stop");
			}
		}
	}

	private void start(String name, Runnable loop) {
		Thread thread = new Thread(loop, name);
		thread.setDaemon(true);
		this.threads.add(thread);
		thread.start();
	}

	private void read(String reader, Cache cache, SplittableRandom random) {
		while (!this.stopped) {
			String key = cacheKey(random.nextInt(SLOTS));
			long start = System.nanoTime();
			try {
				Cache.ValueWrapper wrapper = cache.get(key);
				Object value = (wrapper != null) ? wrapper.get() : null;
				this.check.read(new NearCacheCheck.Read(reader, redisKey(key), start, System.nanoTime(),
						(value != null) ? value.toString() : null, null));
			}
			catch (RuntimeException ex) {
				this.check.read(new NearCacheCheck.Read(reader, redisKey(key), start, System.nanoTime(), null,
						rootCause(ex).getClass().getSimpleName()));
			}
			Traffic.sleep(READ_PACE_MILLIS);
		}
	}

	private void writeLoop(int from, int to, Writes writes) {
		Map<String, Long> versions = new HashMap<>();
		int slot = from;
		while (!this.stopped) {
			String key = redisKey(cacheKey(slot));
			long last = versions.getOrDefault(key, (this.generations.get(slot) == 0) ? 1L : 0L);
			long written = writes.step(key, last);
			if (written < 0) {
				this.generations.incrementAndGet(slot);
				this.retired.incrementAndGet();
			}
			else {
				versions.put(key, written);
			}
			slot = (slot + 1 < to) ? slot + 1 : from;
			Traffic.sleep(WRITE_PACE.toMillis());
		}
	}

	// One write, or two; true when acknowledged
	private boolean record(String key, long version, NearCacheCheck.WriteKind kind, String writer, Runnable write) {
		long issued = System.nanoTime();
		long ack = -1;
		try {
			write.run();
			ack = System.nanoTime();
		}
		catch (RuntimeException ex) {
			// No acknowledgement: the key is retired
		}
		this.check.write(new NearCacheCheck.Write(key, version, kind, writer, issued, ack));
		return ack != -1;
	}

	private static Throwable rootCause(Throwable failure) {
		Throwable cause = failure;
		while (cause.getCause() != null && cause.getCause() != cause) {
			cause = cause.getCause();
		}
		return cause;
	}

	/**
	 * One writer's step on a key.
	 */
	private interface Writes {

		/**
		 * Write the next version(s) of a key.
		 * @param key the Redis key
		 * @param last the last version written to it
		 * @return the last version written, or {@code -1} if a write was not acknowledged
		 */
		long step(String key, long last);

	}

	/**
	 * The application's writes, through the cache's synchronous paths: an evict, then a
	 * put into the absent key.
	 */
	private final class ApplicationWrites implements Writes {

		private final Cache cache;

		private final SplittableRandom random;

		ApplicationWrites(Cache cache, SplittableRandom random) {
			this.cache = cache;
			this.random = random;
		}

		@Override
		public long step(String key, long last) {
			String cacheKey = key.substring(CACHE.length() + 2);
			long version = last + 1;
			if (!record(key, version, NearCacheCheck.WriteKind.DELETE, "application",
					() -> this.cache.evictIfPresent(cacheKey))) {
				return -1;
			}
			if (this.random.nextInt(LONE_EVICTS) == 0) {
				return version;
			}
			long put = version + 1;
			String value = Values.encode(key, put);
			boolean acknowledged = record(key, put, NearCacheCheck.WriteKind.PUT, "application", () -> {
				Cache.ValueWrapper present = this.cache.putIfAbsent(cacheKey, value);
				// Nobody else writes the key, and it was just evicted: a value present
				// means a write of ours was applied late
				if (present != null) {
					throw new IllegalStateException("Present after the evict: " + present.get());
				}
			});
			return acknowledged ? put : -1;
		}

	}

	/**
	 * The outside writer's writes: {@code SET}, or one time in five {@code DEL}.
	 */
	private final class OutsideWrites implements Writes {

		private final RedisClusterCommands<String, String> commands;

		private final SplittableRandom random;

		OutsideWrites(RedisClusterCommands<String, String> commands, SplittableRandom random) {
			this.commands = commands;
			this.random = random;
		}

		@Override
		public long step(String key, long last) {
			long version = last + 1;
			boolean delete = this.random.nextInt(5) == 0;
			boolean acknowledged = delete
					? record(key, version, NearCacheCheck.WriteKind.DELETE, "outside", () -> this.commands.del(key))
					: record(key, version, NearCacheCheck.WriteKind.PUT, "outside",
							() -> this.commands.set(key, Values.encode(key, version)));
			return acknowledged ? version : -1;
		}

	}

}
