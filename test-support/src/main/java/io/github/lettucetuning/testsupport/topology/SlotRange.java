package io.github.lettucetuning.testsupport.topology;

/**
 * An inclusive range of hash slots.
 *
 * @param start the first slot
 * @param end the last slot, inclusive
 */
public record SlotRange(int start, int end) {

	public SlotRange {
		if (start < 0 || end >= ClusterSlots.SLOT_COUNT || end < start) {
			throw new IllegalArgumentException("Invalid slot range " + start + "-" + end);
		}
	}

	/**
	 * Parse {@code 0-5460} or a single slot such as {@code 42}.
	 * @param text the text
	 * @return the range
	 */
	public static SlotRange parse(String text) {
		int dash = text.indexOf('-');
		if (dash < 0) {
			int slot = Integer.parseInt(text);
			return new SlotRange(slot, slot);
		}
		return new SlotRange(Integer.parseInt(text.substring(0, dash)), Integer.parseInt(text.substring(dash + 1)));
	}

	public boolean contains(int slot) {
		return slot >= this.start && slot <= this.end;
	}

	public int size() {
		return this.end - this.start + 1;
	}

	@Override
	public String toString() {
		return (this.start == this.end) ? Integer.toString(this.start) : this.start + "-" + this.end;
	}

}
