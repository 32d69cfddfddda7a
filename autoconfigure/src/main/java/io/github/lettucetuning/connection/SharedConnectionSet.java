package io.github.lettucetuning.connection;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.lettuce.core.api.StatefulConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

/**
 * A fixed set of native connections, each shared by every thread. A member is opened on
 * first use and kept until {@link #close()}: Lettuce reconnects a broken member on its
 * own, so it is never replaced while open. Picking a member reads a volatile field and,
 * depending on the policy, one counter: no lock, no allocation.
 *
 * @author lettuce-tuning
 * @since 0.1.0
 */
public final class SharedConnectionSet implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(SharedConnectionSet.class);

	private final LettuceConnectionProvider provider;

	private final Function<RuntimeException, RuntimeException> exceptionTranslator;

	private final Member[] members;

	private final SelectionPolicy policy;

	private final AtomicInteger next = new AtomicInteger();

	/**
	 * Create a set.
	 * @param provider the provider that opens members (never a pool)
	 * @param size the number of members
	 * @param policy how a member is picked per operation
	 * @param exceptionTranslator translates a failure to connect
	 */
	public SharedConnectionSet(LettuceConnectionProvider provider, int size, SelectionPolicy policy,
			Function<RuntimeException, RuntimeException> exceptionTranslator) {
		if (size < 1) {
			throw new IllegalArgumentException("size must be at least 1, was " + size);
		}
		this.provider = provider;
		this.policy = policy;
		this.exceptionTranslator = exceptionTranslator;
		this.members = new Member[size];
		for (int i = 0; i < size; i++) {
			this.members[i] = new Member();
		}
	}

	/**
	 * Pick a member for one operation, opening it if needed.
	 * @return the picked connection
	 */
	public StatefulConnection<?, ?> select() {
		Member member = this.members[selectIndex()];
		if (this.policy == SelectionPolicy.LEAST_IN_FLIGHT) {
			member.inFlight.incrementAndGet();
		}
		return member.connection();
	}

	private int selectIndex() {
		int size = this.members.length;
		if (size == 1) {
			return 0;
		}
		return switch (this.policy) {
			case ROUND_ROBIN -> Math.floorMod(this.next.getAndIncrement(), size);
			case THREAD_AFFINITY -> Math.floorMod(mix(Thread.currentThread().getId()), size);
			case LEAST_IN_FLIGHT -> leastInFlight();
		};
	}

	// A random start spreads ties so that idle members do not all go to the first one.
	private int leastInFlight() {
		int size = this.members.length;
		int start = ThreadLocalRandom.current().nextInt(size);
		int best = start;
		int bestCount = this.members[start].inFlight.get();
		for (int offset = 1; offset < size && bestCount > 0; offset++) {
			int index = (start + offset) % size;
			int count = this.members[index].inFlight.get();
			if (count < bestCount) {
				best = index;
				bestCount = count;
			}
		}
		return best;
	}

	// Thread ids are sequential; mixing them keeps neighbouring threads apart.
	private static int mix(long id) {
		long h = id * 0x9E3779B97F4A7C15L;
		return (int) (h ^ (h >>> 32));
	}

	/**
	 * Signal that an operation that used {@code connection} has finished. Only
	 * {@link SelectionPolicy#LEAST_IN_FLIGHT} keeps count.
	 * @param connection a connection returned by {@link #select()}
	 */
	public void release(StatefulConnection<?, ?> connection) {
		if (this.policy != SelectionPolicy.LEAST_IN_FLIGHT) {
			return;
		}
		for (Member member : this.members) {
			if (member.current == connection) {
				member.inFlight.decrementAndGet();
				return;
			}
		}
	}

	/**
	 * Open every member that is not open yet.
	 */
	public void connectAll() {
		for (Member member : this.members) {
			member.connection();
		}
	}

	/**
	 * Return the members opened so far.
	 * @return the open connections, in member order
	 */
	public List<StatefulConnection<?, ?>> connections() {
		List<StatefulConnection<?, ?>> connections = new ArrayList<>(this.members.length);
		for (Member member : this.members) {
			StatefulConnection<?, ?> connection = member.current;
			if (connection != null) {
				connections.add(connection);
			}
		}
		return connections;
	}

	/**
	 * Return the number of members of this set.
	 * @return the size
	 */
	public int size() {
		return this.members.length;
	}

	/**
	 * Return the operations in flight per member, as counted for
	 * {@link SelectionPolicy#LEAST_IN_FLIGHT} (zeros for other policies).
	 * @return the counts, in member order
	 */
	public int[] inFlight() {
		int[] counts = new int[this.members.length];
		for (int i = 0; i < counts.length; i++) {
			counts[i] = this.members[i].inFlight.get();
		}
		return counts;
	}

	/**
	 * Close every member; a later {@link #select()} opens them again.
	 */
	@Override
	public void close() {
		for (Member member : this.members) {
			member.close();
		}
	}

	private final class Member {

		private volatile @Nullable StatefulConnection<?, ?> current;

		private final AtomicInteger inFlight = new AtomicInteger();

		StatefulConnection<?, ?> connection() {
			StatefulConnection<?, ?> connection = this.current;
			return (connection != null) ? connection : open();
		}

		private synchronized StatefulConnection<?, ?> open() {
			StatefulConnection<?, ?> connection = this.current;
			if (connection == null) {
				connection = connect();
				this.current = connection;
			}
			return connection;
		}

		private StatefulConnection<?, ?> connect() {
			try {
				return SharedConnectionSet.this.provider.getConnection(StatefulConnection.class);
			}
			catch (RuntimeException ex) {
				throw SharedConnectionSet.this.exceptionTranslator.apply(ex);
			}
		}

		synchronized void close() {
			StatefulConnection<?, ?> connection = this.current;
			this.current = null;
			this.inFlight.set(0);
			if (connection != null) {
				try {
					SharedConnectionSet.this.provider.release(connection);
				}
				catch (RuntimeException ex) {
					logger.debug("Failed to close a shared connection", ex);
				}
			}
		}

	}

}
