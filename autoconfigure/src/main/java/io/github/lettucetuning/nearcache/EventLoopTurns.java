package io.github.lettucetuning.nearcache;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.lettuce.core.resource.Transports;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import org.jspecify.annotations.Nullable;

/**
 * Opens the near cache's connections on the event loop next in turn without moving the
 * application's own among the client's event loops.
 * <p>
 * Netty gives each new channel the next event loop of its group in turn. The tracking
 * connection opens at the first read of a near cache, which often falls between two of
 * the application's connections: Spring Data opens its reactive connection, which carries
 * the cache's asynchronous writes, at the first of them. The tracking connection took
 * that connection's turn, so on a 2-core machine (two event loops) both of the
 * application's connections shared one loop while the other carried only invalidations,
 * and writes through the cache ran at 0.73x-0.86x of the starter without the near cache.
 * <p>
 * So the turn is moved on to where it would have been: the loop next in turn is noted
 * before the connections open, and the turn is moved on past it once more, then to it.
 * The application's next connection gets the loop it would have got. Turns taken by other
 * callers meanwhile are kept; a group that does not hand out loops in turn is left as it
 * is after a bounded number of steps.
 * <p>
 * The connections themselves open from that noted loop on: the one the turn would give
 * next, so the one round-robin has given least lately, not the one the application's last
 * connection took. The tracking connection carries the near caches' own writes too: left
 * on the loop after the noted one, with two loops it shared the loop of the application's
 * connection while the other loop idled (a per-thread CPU sample of the benchmark's write
 * cell showed one event-loop thread busy, and a third of the two cores idle).
 */
final class EventLoopTurns {

	private EventLoopTurns() {
	}

	/**
	 * Open connections and give back the event-loop turns they took.
	 * @param <T> what the opening returns
	 * @param resources the client's resources
	 * @param opening opens the connections
	 * @return what the opening returned
	 */
	static <T> T giveBack(ClientResources resources, Supplier<T> opening) {
		EventLoopGroupProvider provider = resources.eventLoopGroupProvider();
		EventLoopGroup group = allocate(provider);
		if (group == null) {
			return opening.get();
		}
		int loops = loops(group);
		EventExecutor noted = group.next();
		// a whole turn round, less one: the opening starts on the noted loop
		step(group, loops - 1);
		try {
			return opening.get();
		}
		finally {
			if (loops > 1) {
				advancePast(group, noted, loops);
				step(group, loops - 1);
			}
			provider.release(group, 0, 0, TimeUnit.SECONDS);
		}
	}

	// The group the client's connections use: the provider keeps one per transport, so
	// this is the client's own, counted once more while it is used here.
	private static @Nullable EventLoopGroup allocate(EventLoopGroupProvider provider) {
		try {
			return provider.allocate(Transports.eventLoopGroupClass());
		}
		catch (RuntimeException ex) {
			// Shut down meanwhile: nothing to give back
			return null;
		}
	}

	private static int loops(EventExecutorGroup group) {
		int loops = 0;
		for (EventExecutor ignored : group) {
			loops++;
		}
		return loops;
	}

	private static void step(EventLoopGroup group, int times) {
		for (int i = 0; i < times; i++) {
			group.next();
		}
	}

	// Steps until the noted loop has been handed out again: the turn then stands one
	// past where it stood before the noted step.
	private static void advancePast(EventLoopGroup group, EventExecutor noted, int loops) {
		for (int i = 0; i < 2 * loops; i++) {
			if (group.next() == noted) {
				return;
			}
		}
	}

}
