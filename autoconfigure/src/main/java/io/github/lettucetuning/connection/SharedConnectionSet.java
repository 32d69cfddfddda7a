package io.github.lettucetuning.connection;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Predicate;

import io.github.lettucetuning.eventloop.BlockingCallGuard;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

/**
 * A fixed set of native connections, each shared by every thread. A member is opened on
 * first use. Lettuce reconnects a broken member on its own, so a member is replaced only
 * when its connection is closed for good or, with {@link #setValidateConnection
 * validation} on, when it fails a {@code PING} (as Spring Data Redis validates its one
 * shared connection). Picking an open member takes no lock: a volatile read and, per
 * policy, one counter. A standalone member that lands on the event loop of another member
 * is opened again, so that each member has an event loop of its own (the multi mode sizes
 * the I/O pool to at least one loop per member).
 * <p>
 * Every member counts what is in flight on it, in every policy: operations between
 * {@link #select()} and {@link #release}, and commands of the views that
 * {@link #selectCountingCommands()} hands out, from their first request to completion,
 * error or cancellation. A count belongs to one native connection: when a member is
 * replaced its new connection starts at zero, and late releases of the old one change
 * nothing.
 *
 * @since 0.1.0
 */
public final class SharedConnectionSet implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(SharedConnectionSet.class);

	private final LettuceConnectionProvider provider;

	private final Function<RuntimeException, RuntimeException> exceptionTranslator;

	private final Member[] members;

	private final SelectionPolicy policy;

	private final AtomicInteger next = new AtomicInteger();

	private volatile boolean validateConnection;

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
	 * Set whether every pick checks its member with a {@code PING} and replaces it when
	 * it is not open or does not answer.
	 * @param validateConnection whether to validate on every pick
	 */
	public void setValidateConnection(boolean validateConnection) {
		this.validateConnection = validateConnection;
	}

	/**
	 * Pick a member for one operation, opening or replacing it if needed, and count the
	 * operation in flight on it until {@link #release} is called with the returned
	 * connection. Nothing is counted when this method throws.
	 * @return the picked connection
	 */
	public StatefulConnection<?, ?> select() {
		Slot slot = pick();
		slot.inFlight.incrementAndGet();
		return slot.connection;
	}

	/**
	 * Pick a member for one operation as {@link #select()} does, but pass over members
	 * that a test rejects while another member is left; with every member rejected, the
	 * usual pick. Count the operation in flight as {@link #select()} does.
	 * @param avoid tells the connections to pass over
	 * @return the picked connection
	 */
	public StatefulConnection<?, ?> select(Predicate<StatefulConnection<?, ?>> avoid) {
		int start = selectIndex();
		Slot slot = pick(start);
		for (int offset = 1; offset < this.members.length && avoid.test(slot.connection); offset++) {
			Slot other = this.members[(start + offset) % this.members.length].current;
			if (isOpen(other) && !avoid.test(other.connection)) {
				slot = other;
			}
		}
		slot.inFlight.incrementAndGet();
		return slot.connection;
	}

	/**
	 * Pick a member, opening or replacing it if needed, and return a view of its
	 * connection whose reactive commands count themselves in flight on the member from
	 * subscription until they complete, fail or are cancelled. Nothing needs releasing.
	 * @return a view of the picked connection
	 */
	public StatefulConnection<?, ?> selectCountingCommands() {
		return pick().commandCountingView();
	}

	private Slot pick() {
		return pick(selectIndex());
	}

	private Slot pick(int index) {
		Member member = this.members[index];
		Slot slot = member.current;
		if (isOpen(slot) && !this.validateConnection) {
			return slot;
		}
		// A caller on an event loop takes any member already open rather than open one:
		// the new connection may be given the caller's own loop, which cannot connect it
		// while its thread waits.
		Slot open = BlockingCallGuard.onEventLoop() ? anyOpen() : null;
		return (open != null) ? open : member.slot(this.validateConnection);
	}

	private @Nullable Slot anyOpen() {
		for (Member member : this.members) {
			Slot slot = member.current;
			if (isOpen(slot)) {
				return slot;
			}
		}
		return null;
	}

	private static boolean isOpen(@Nullable Slot slot) {
		return slot != null && !isClosed(slot.connection);
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
		int bestCount = this.members[start].inFlight();
		for (int offset = 1; offset < size && bestCount > 0; offset++) {
			int index = (start + offset) % size;
			int count = this.members[index].inFlight();
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
	 * Signal that an operation that used {@code connection} has finished. Call it once
	 * per {@link #select()}; a connection that is no longer a member is ignored.
	 * @param connection a connection returned by {@link #select()}
	 */
	public void release(StatefulConnection<?, ?> connection) {
		for (Member member : this.members) {
			Slot slot = member.current;
			if (slot != null && slot.connection == connection) {
				slot.inFlight.decrementAndGet();
				return;
			}
		}
	}

	/**
	 * Open every member that is not open yet.
	 */
	public void connectAll() {
		for (Member member : this.members) {
			member.slot(false);
		}
	}

	/**
	 * Check every open member with a {@code PING} and replace those that are not open or
	 * do not answer.
	 */
	public void validate() {
		for (Member member : this.members) {
			Slot slot = member.current;
			if (slot != null && !slot.isValid()) {
				member.replace(slot);
			}
		}
	}

	/**
	 * Return the members opened so far.
	 * @return the open connections, in member order
	 */
	public List<StatefulConnection<?, ?>> connections() {
		List<StatefulConnection<?, ?>> connections = new ArrayList<>(this.members.length);
		for (Member member : this.members) {
			Slot slot = member.current;
			if (slot != null) {
				connections.add(slot.connection);
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
	 * Return what is in flight on each member now, in every selection policy.
	 * @return the counts, in member order ({@code 0} for a member not opened)
	 */
	public int[] inFlight() {
		int[] counts = new int[this.members.length];
		for (int i = 0; i < counts.length; i++) {
			counts[i] = this.members[i].inFlight();
		}
		return counts;
	}

	/**
	 * Return what is in flight on one member now.
	 * @param member the member's index
	 * @return the count ({@code 0} for a member not opened)
	 */
	public int inFlight(int member) {
		return this.members[member].inFlight();
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

	private void closeQuietly(StatefulConnection<?, ?> connection) {
		if (isClosed(connection)) {
			return;
		}
		try {
			this.provider.release(connection);
		}
		catch (RuntimeException ex) {
			logger.debug("Failed to close a shared connection", ex);
		}
	}

	private static boolean isClosed(StatefulConnection<?, ?> connection) {
		return connection instanceof RedisChannelHandler<?, ?> handler && handler.isClosed();
	}

	/**
	 * One member of the set. Opening and replacing take a {@link ReentrantLock}, not a
	 * monitor: connecting blocks, and a virtual thread blocked inside
	 * {@code synchronized} pins its carrier on JDK 21 to 23.
	 */
	private final class Member {

		private final ReentrantLock lock = new ReentrantLock();

		private volatile @Nullable Slot current;

		Slot slot(boolean validate) {
			Slot slot = this.current;
			if (slot != null && !isClosed(slot.connection) && (!validate || slot.isValid())) {
				return slot;
			}
			return replace(slot);
		}

		// Replaces the given slot, unless another thread did so already.
		Slot replace(@Nullable Slot stale) {
			this.lock.lock();
			try {
				Slot slot = this.current;
				if (slot != null && slot != stale) {
					return slot;
				}
				if (slot != null) {
					this.current = null;
					logger.info("Replacing a shared Redis connection that is closed or failed validation");
					closeQuietly(slot.connection);
				}
				Slot opened = new Slot(connectOnOwnEventLoop());
				this.current = opened;
				return opened;
			}
			finally {
				this.lock.unlock();
			}
		}

		// Netty hands event loops to new channels in turn, so another connection opened
		// meanwhile (dedicated, the other API's set) can put two members on one loop,
		// which then serialises their I/O. Opening again moves on to the next loop; the
		// I/O pool has at least one loop per member, so a free one comes within as many
		// attempts.
		private StatefulConnection<?, ?> connectOnOwnEventLoop() {
			StatefulConnection<?, ?> connection = connect();
			// Finding loops costs a PING per member, which a caller on an event loop may
			// not be able to read: such a caller keeps the first connection.
			if (BlockingCallGuard.onEventLoop()) {
				return connection;
			}
			Set<Thread> taken = eventLoopsOfOtherMembers();
			for (int attempt = 1; attempt <= SharedConnectionSet.this.members.length
					&& isOnOneOf(taken, connection); attempt++) {
				logger.debug("A shared Redis connection landed on the event loop of another member; opening another");
				closeQuietly(connection);
				connection = connect();
			}
			return connection;
		}

		// Each look-up costs a PING, so the other members are asked once per opening, and
		// a set of one, or its first member to open, asks nothing.
		private Set<Thread> eventLoopsOfOtherMembers() {
			Set<Thread> eventLoops = new HashSet<>();
			for (Member other : SharedConnectionSet.this.members) {
				Slot slot = other.current;
				Thread eventLoop = (other != this && slot != null) ? ConnectionEventLoops.of(slot.connection) : null;
				if (eventLoop != null) {
					eventLoops.add(eventLoop);
				}
			}
			return eventLoops;
		}

		private boolean isOnOneOf(Set<Thread> eventLoops, StatefulConnection<?, ?> connection) {
			return !eventLoops.isEmpty() && eventLoops.contains(ConnectionEventLoops.of(connection));
		}

		private StatefulConnection<?, ?> connect() {
			try {
				return SharedConnectionSet.this.provider.getConnection(StatefulConnection.class);
			}
			catch (RuntimeException ex) {
				throw SharedConnectionSet.this.exceptionTranslator.apply(ex);
			}
		}

		int inFlight() {
			Slot slot = this.current;
			return (slot != null) ? slot.inFlight.get() : 0;
		}

		void close() {
			this.lock.lock();
			try {
				Slot slot = this.current;
				this.current = null;
				if (slot != null) {
					closeQuietly(slot.connection);
				}
			}
			finally {
				this.lock.unlock();
			}
		}

	}

	/**
	 * One native connection of a member and what is in flight on it.
	 */
	private static final class Slot {

		private final StatefulConnection<?, ?> connection;

		private final AtomicInteger inFlight = new AtomicInteger();

		private volatile @Nullable StatefulConnection<?, ?> commandCountingView;

		Slot(StatefulConnection<?, ?> connection) {
			this.connection = connection;
		}

		// Created once per connection: a view is a pair of JDK proxies.
		StatefulConnection<?, ?> commandCountingView() {
			StatefulConnection<?, ?> view = this.commandCountingView;
			if (view == null) {
				view = CommandCountingConnection.wrap(this.connection, this.inFlight);
				this.commandCountingView = view;
			}
			return view;
		}

		// As Spring Data Redis validates its shared connection: open, and answers a PING.
		boolean isValid() {
			if (!this.connection.isOpen()) {
				return false;
			}
			try {
				if (this.connection instanceof StatefulRedisConnection<?, ?> redis) {
					redis.sync().ping();
				}
				else if (this.connection instanceof StatefulRedisClusterConnection<?, ?> cluster) {
					cluster.sync().ping();
				}
				return true;
			}
			catch (RuntimeException ex) {
				logger.debug("Validation of a shared Redis connection failed", ex);
				return false;
			}
		}

	}

}
