package io.github.lettucetuning.testsupport.topology;

import java.nio.charset.StandardCharsets;

/**
 * Redis Cluster key to hash slot mapping: CRC16 (XMODEM) of the key, or of its hash tag
 * (the part between the first <code>{</code> and the following <code>}</code> when that
 * part is not empty), modulo 16384. Our own implementation, so the tests never ask the
 * client under test which node owns a key.
 */
public final class ClusterSlots {

	/**
	 * Number of hash slots in a Redis Cluster.
	 */
	public static final int SLOT_COUNT = 16384;

	private static final int[] TABLE = crc16Table();

	private ClusterSlots() {
	}

	/**
	 * Return the hash slot of a key.
	 * @param key the key
	 * @return the slot, between 0 and 16383
	 */
	public static int slotFor(String key) {
		return slotFor(key.getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * Return the hash slot of a binary key.
	 * @param key the key bytes
	 * @return the slot, between 0 and 16383
	 */
	public static int slotFor(byte[] key) {
		int start = 0;
		int end = key.length;
		int open = indexOf(key, (byte) '{', 0);
		if (open >= 0) {
			int close = indexOf(key, (byte) '}', open + 1);
			if (close > open + 1) {
				start = open + 1;
				end = close;
			}
		}
		return crc16(key, start, end) & (SLOT_COUNT - 1);
	}

	/**
	 * CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0) as used by Redis Cluster.
	 * @param bytes the bytes
	 * @param start first index, inclusive
	 * @param end last index, exclusive
	 * @return the checksum
	 */
	public static int crc16(byte[] bytes, int start, int end) {
		int crc = 0;
		for (int i = start; i < end; i++) {
			crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ bytes[i]) & 0xFF]) & 0xFFFF;
		}
		return crc;
	}

	private static int indexOf(byte[] bytes, byte value, int from) {
		for (int i = from; i < bytes.length; i++) {
			if (bytes[i] == value) {
				return i;
			}
		}
		return -1;
	}

	private static int[] crc16Table() {
		int[] table = new int[256];
		for (int value = 0; value < 256; value++) {
			int crc = value << 8;
			for (int bit = 0; bit < 8; bit++) {
				crc = ((crc & 0x8000) != 0) ? (crc << 1) ^ 0x1021 : crc << 1;
			}
			table[value] = crc & 0xFFFF;
		}
		return table;
	}

}
