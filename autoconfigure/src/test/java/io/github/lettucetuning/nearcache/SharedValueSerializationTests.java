package io.github.lettucetuning.nearcache;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.serializer.RedisSerializationContext.SerializationPair;
import org.springframework.data.redis.serializer.RedisSerializer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link SharedValueSerialization} and {@link HeldValue}: which objects are
 * shared, and that only the very bytes the near cache served, read by the same
 * serialisation, get the object kept with them. The near cache's side is in
 * {@code NearCacheSharedValuesIntegrationTests}.
 */
class SharedValueSerializationTests {

	private static final SerializationPair<Object> JDK = SerializationPair.fromSerializer(RedisSerializer.java());

	@Test
	void immutableJdkTypesAreSharedAndOthersAreNot() {
		assertThat(List.of("text", 1, 2L, 'c', true, 1.5d, BigDecimal.ONE, BigInteger.TEN, UUID.randomUUID(),
				Instant.now(), TimeUnit.SECONDS))
			.allMatch(SharedValueSerialization::isImmutable);
		assertThat(List.of(new ArrayList<>(), new StringBuilder(), new BigInteger("7") {
		}, new Holder("x"))).noneMatch(SharedValueSerialization::isImmutable);
	}

	@Test
	void immutableValueServedAgainIsTheSameObject() {
		SerializationPair<Object> pair = SharedValueSerialization.of(JDK, true);
		HeldValue held = held("text");
		Object first = pair.read(ByteBuffer.wrap(held.serve()));
		assertThat(pair.read(ByteBuffer.wrap(held.serve()))).isSameAs(first).isEqualTo("text");
	}

	@Test
	void mutableValueIsCopiedUnlessStoredByReference() {
		HeldValue held = held(new ArrayList<>(List.of("a")));
		SerializationPair<Object> copying = SharedValueSerialization.of(JDK, true);
		Object first = copying.read(ByteBuffer.wrap(held.serve()));
		assertThat(copying.read(ByteBuffer.wrap(held.serve()))).isNotSameAs(first).isEqualTo(first);
		SerializationPair<Object> sharing = SharedValueSerialization.of(JDK, false);
		Object shared = sharing.read(ByteBuffer.wrap(held.serve()));
		assertThat(sharing.read(ByteBuffer.wrap(held.serve()))).isSameAs(shared);
	}

	@Test
	void onlyTheBytesJustServedGetTheKeptObject() {
		SerializationPair<Object> pair = SharedValueSerialization.of(JDK, true);
		HeldValue held = held("text");
		Object kept = pair.read(ByteBuffer.wrap(held.serve()));
		// Not served on this thread since: read afresh
		assertThat(pair.read(ByteBuffer.wrap(held.bytes()))).isNotSameAs(kept).isEqualTo("text");
		// Equal bytes in another array are not the bytes the near cache holds
		held.serve();
		assertThat(pair.read(ByteBuffer.wrap(held.bytes().clone()))).isNotSameAs(kept).isEqualTo("text");
	}

	@Test
	void anotherSerialisationDoesNotGetTheObjectAnotherMade() {
		HeldValue held = held("text");
		SerializationPair<Object> one = SharedValueSerialization.of(JDK, true);
		SerializationPair<Object> other = SharedValueSerialization
			.of(SerializationPair.fromSerializer(RedisSerializer.java()), true);
		Object kept = one.read(ByteBuffer.wrap(held.serve()));
		assertThat(other.read(ByteBuffer.wrap(held.serve()))).isNotSameAs(kept).isEqualTo("text");
	}

	@Test
	void wrappingAgainKeepsOneWrapper() {
		SerializationPair<Object> wrapped = SharedValueSerialization.of(JDK, true);
		assertThat(SharedValueSerialization.of(wrapped, true)).isSameAs(wrapped);
		SerializationPair<Object> rewrapped = SharedValueSerialization.of(wrapped, false);
		assertThat(rewrapped).isNotSameAs(wrapped).isInstanceOf(SharedValueSerialization.class);
		HeldValue held = held(new ArrayList<>(List.of("a")));
		Object shared = rewrapped.read(ByteBuffer.wrap(held.serve()));
		assertThat(rewrapped.read(ByteBuffer.wrap(held.serve()))).isSameAs(shared);
	}

	@Test
	void writesAsTheWrappedSerialisation() {
		SerializationPair<Object> pair = SharedValueSerialization.of(JDK, false);
		assertThat(pair.write("text")).isEqualTo(JDK.write("text"));
		assertThat(pair.getWriter().write("text")).isEqualTo(JDK.write("text"));
	}

	private static HeldValue held(Object value) {
		return new HeldValue(RedisSerializer.java().serialize(value), System.nanoTime() + TimeUnit.MINUTES.toNanos(1));
	}

	record Holder(String value) implements java.io.Serializable {
	}

}
