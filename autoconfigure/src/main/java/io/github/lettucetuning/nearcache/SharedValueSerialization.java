package io.github.lettucetuning.nearcache;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.serializer.RedisElementReader;
import org.springframework.data.redis.serializer.RedisElementWriter;
import org.springframework.data.redis.serializer.RedisSerializationContext.SerializationPair;
import org.springframework.util.Assert;

/**
 * The value serialisation of a cache with a near cache: a value the near cache serves
 * from memory is deserialised once and the object handed to the reads that follow, until
 * Redis invalidates the key, when it may be shared.
 * <p>
 * An object of an immutable type of the JDK ({@code String}, the boxed primitives,
 * {@code BigInteger}, {@code BigDecimal}, {@code UUID}, the main {@code java.time}
 * values, enums) is always shared: no reader can tell it from a copy. Any other object is
 * shared only when the application said its cached values are not changed by their
 * readers ({@code lettuce.tuning.near-cache.store-by-value=false}); otherwise each read
 * deserialises a copy of its own, as {@code RedisCache} does. Values written are
 * serialised by the delegate, unchanged.
 *
 * @since 0.1.0
 */
public final class SharedValueSerialization implements SerializationPair<Object> {

	// Exact classes: a subclass of a non-final one (BigInteger, BigDecimal) may be
	// mutable.
	private static final Set<Class<?>> IMMUTABLE = Set.of(String.class, Boolean.class, Character.class, Byte.class,
			Short.class, Integer.class, Long.class, Float.class, Double.class, BigInteger.class, BigDecimal.class,
			UUID.class, Instant.class, Duration.class, LocalDate.class, LocalTime.class, LocalDateTime.class,
			OffsetDateTime.class, ZonedDateTime.class);

	private final SerializationPair<Object> delegate;

	private final RedisElementReader<Object> reader;

	private final boolean shareAll;

	private final Predicate<Object> shareable;

	private SharedValueSerialization(SerializationPair<Object> delegate, boolean shareAll) {
		this.delegate = delegate;
		this.reader = delegate.getReader();
		this.shareAll = shareAll;
		this.shareable = shareAll ? (value) -> true : SharedValueSerialization::isImmutable;
	}

	/**
	 * Share the values a serialisation reads from the near cache.
	 * @param delegate the cache's serialisation of values
	 * @param storeByValue whether each read gets its own copy of a value whose type the
	 * JDK does not make immutable
	 * @return the serialisation, or the given one when it already shares the same way
	 */
	public static SerializationPair<Object> of(SerializationPair<Object> delegate, boolean storeByValue) {
		Assert.notNull(delegate, "'delegate' must not be null");
		if (delegate instanceof SharedValueSerialization shared) {
			return (shared.shareAll == !storeByValue) ? shared : of(shared.delegate, storeByValue);
		}
		return new SharedValueSerialization(delegate, !storeByValue);
	}

	/**
	 * Whether readers can tell a shared object from a copy of their own.
	 * @param value a value read
	 * @return whether the value is of an immutable type of the JDK
	 */
	static boolean isImmutable(Object value) {
		return IMMUTABLE.contains(value.getClass()) || value instanceof Enum<?>;
	}

	@Override
	public RedisElementReader<Object> getReader() {
		return this::read;
	}

	@Override
	public @Nullable Object read(ByteBuffer buffer) {
		return HeldValue.read(buffer, this.reader, this.shareable);
	}

	@Override
	public RedisElementWriter<Object> getWriter() {
		return this.delegate.getWriter();
	}

	@Override
	public ByteBuffer write(Object element) {
		return this.delegate.write(element);
	}

}
