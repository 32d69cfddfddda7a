package io.github.lettucetuning.testsupport.fault;

import org.jspecify.annotations.Nullable;

/**
 * A firewall tool able to drop the TCP traffic of one local port.
 */
interface Firewall {

	String name();

	/**
	 * Check whether the tool exists and may change rules.
	 * @return {@code null} if usable, otherwise why not
	 */
	@Nullable String unavailableReason();

	void block(int port);

	void unblock(int port);

}
