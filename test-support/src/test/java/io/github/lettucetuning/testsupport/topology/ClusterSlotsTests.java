package io.github.lettucetuning.testsupport.topology;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ClusterSlots}.
 */
class ClusterSlotsTests {

	@Test
	void crc16MatchesTheXmodemCheckValue() {
		byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
		assertThat(ClusterSlots.crc16(check, 0, check.length)).isEqualTo(0x31C3);
	}

	@Test
	void slotsMatchValuesDocumentedByRedis() {
		assertThat(ClusterSlots.slotFor("foo")).isEqualTo(12182);
		assertThat(ClusterSlots.slotFor("somekey")).isEqualTo(11058);
		assertThat(ClusterSlots.slotFor("foo{hash_tag}")).isEqualTo(2515);
		assertThat(ClusterSlots.slotFor("bar{hash_tag}")).isEqualTo(2515);
	}

	@Test
	void keysWithTheSameHashTagShareASlot() {
		int following = ClusterSlots.slotFor("{user1000}.following");
		assertThat(ClusterSlots.slotFor("{user1000}.followers")).isEqualTo(following);
		assertThat(following).isEqualTo(ClusterSlots.slotFor("user1000"));
	}

	@Test
	void emptyHashTagHashesTheWholeKey() {
		assertThat(ClusterSlots.slotFor("foo{}{bar}")).isNotEqualTo(ClusterSlots.slotFor("bar"))
			.isEqualTo(crc16Slot("foo{}{bar}"));
	}

	@Test
	void onlyTheFirstHashTagCounts() {
		assertThat(ClusterSlots.slotFor("foo{{bar}}zap")).isEqualTo(ClusterSlots.slotFor("{bar"));
		assertThat(ClusterSlots.slotFor("foo{bar}{zap}")).isEqualTo(ClusterSlots.slotFor("bar"));
	}

	@Test
	void unclosedBraceHashesTheWholeKey() {
		assertThat(ClusterSlots.slotFor("foo{bar")).isEqualTo(crc16Slot("foo{bar"));
	}

	@Test
	void emptyKeyIsSlotZeroAndEverySlotIsInRange() {
		assertThat(ClusterSlots.slotFor("")).isZero();
		for (int i = 0; i < 10_000; i++) {
			assertThat(ClusterSlots.slotFor("key:" + i)).isBetween(0, ClusterSlots.SLOT_COUNT - 1);
		}
	}

	private static int crc16Slot(String key) {
		byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
		return ClusterSlots.crc16(bytes, 0, bytes.length) % ClusterSlots.SLOT_COUNT;
	}

}
