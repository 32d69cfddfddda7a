package io.github.lettucetuning.nearcache;

import java.nio.ByteBuffer;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.serializer.RedisElementReader;

/**
 * A value the near cache holds: its bytes as Redis stores them, when it expires, and,
 * once read, the object its cache's serialisation made of them, for the readers that may
 * share it.
 * <p>
 * The store hands the object over without knowing the cache's serialisation: it marks,
 * per thread, the value it has just served, and the serialisation that reads the same
 * bytes (the same array, not an equal one) next on that thread takes the object kept with
 * them. A value dropped from the store takes its object with it.
 */
final class HeldValue {

	private static final ThreadLocal<Served> SERVED = ThreadLocal.withInitial(Served::new);

	private final byte[] bytes;

	private final long expiresAt;

	private volatile @Nullable Shared shared;

	HeldValue(byte[] bytes, long expiresAt) {
		this.bytes = bytes;
		this.expiresAt = expiresAt;
	}

	byte[] bytes() {
		return this.bytes;
	}

	/**
	 * When the value expires, in {@link System#nanoTime()}.
	 * @return the expiry
	 */
	long expiresAt() {
		return this.expiresAt;
	}

	boolean isLive() {
		return this.expiresAt - System.nanoTime() > 0;
	}

	/**
	 * Mark this value as the one the current thread was just served, and return its
	 * bytes.
	 * @return the bytes
	 */
	byte[] serve() {
		SERVED.get().value = this;
		return this.bytes;
	}

	/**
	 * Read a value: the object kept with the bytes when this thread was just served them
	 * and the same reader made it, else what the reader makes of them, kept for the next
	 * readers when it may be shared.
	 * @param buffer the bytes, wrapped
	 * @param reader the serialisation's reader
	 * @param shareable whether an object the reader made may be handed to other readers
	 * @return the value
	 */
	static @Nullable Object read(ByteBuffer buffer, RedisElementReader<?> reader, Predicate<Object> shareable) {
		Served served = SERVED.get();
		HeldValue held = served.value;
		if (held == null) {
			return reader.read(buffer);
		}
		served.value = null;
		if (!buffer.hasArray() || buffer.array() != held.bytes || buffer.arrayOffset() != 0 || buffer.position() != 0
				|| buffer.remaining() != held.bytes.length) {
			return reader.read(buffer);
		}
		Shared shared = held.shared;
		if (shared != null && shared.reader == reader) {
			return shared.value;
		}
		Object value = reader.read(buffer);
		if (value != null && shareable.test(value)) {
			held.shared = new Shared(reader, value);
		}
		return value;
	}

	private static final class Served {

		private @Nullable HeldValue value;

	}

	// The reader that made the value: two caches that keep the same key with different
	// serialisations must not hand each other their objects.
	private record Shared(Object reader, Object value) {
	}

}
