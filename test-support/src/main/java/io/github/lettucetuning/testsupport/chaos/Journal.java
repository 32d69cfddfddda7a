package io.github.lettucetuning.testsupport.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

/**
 * Every operation of a campaign: what was sent, when, and how it ended. Many worker
 * threads record at once; an operation is recorded when it is issued, so one whose caller
 * never got an answer shows up as pending.
 */
public final class Journal {

	private final LongSupplier clock;

	private final AtomicLong ids = new AtomicLong();

	private final Map<Long, Operation> pending = new ConcurrentHashMap<>();

	private final Queue<Operation> ended = new ConcurrentLinkedQueue<>();

	private final Queue<Received> received = new ConcurrentLinkedQueue<>();

	/**
	 * Create a journal on {@link System#nanoTime()}.
	 */
	public Journal() {
		this(System::nanoTime);
	}

	/**
	 * Create a journal on a clock of its own.
	 * @param clock the clock, in nanoseconds
	 */
	public Journal(LongSupplier clock) {
		this.clock = clock;
	}

	/**
	 * Record an operation as it is issued.
	 * @param worker the worker issuing it
	 * @param kind what it is
	 * @param key the key it addresses
	 * @param value the value it sends, if any
	 * @return the handle to record its end with
	 */
	public Entry begin(String worker, OpKind kind, String key, @Nullable String value) {
		Operation operation = new Operation(this.ids.incrementAndGet(), worker, kind, key, value,
				this.clock.getAsLong(), 0, null, null, null);
		this.pending.put(operation.id(), operation);
		return new Entry(operation);
	}

	/**
	 * Add an operation that has been recorded elsewhere (a replayed or hand-made
	 * journal).
	 * @param operation the operation
	 */
	public void add(Operation operation) {
		if (operation.ended()) {
			this.ended.add(operation);
		}
		else {
			this.pending.put(operation.id(), operation);
		}
	}

	/**
	 * Return every operation recorded so far, ended or not, by id.
	 * @return the operations
	 */
	public List<Operation> operations() {
		List<Operation> operations = new ArrayList<>(this.ended);
		operations.addAll(this.pending.values());
		operations.sort(Comparator.comparingLong(Operation::id));
		return operations;
	}

	/**
	 * Record a Pub/Sub message as a subscriber receives it; cheap and safe to call from
	 * the client's event loop.
	 * @param channel the channel it arrived on
	 * @param message the message
	 */
	public void received(String channel, String message) {
		this.received.add(new Received(channel, message, this.clock.getAsLong()));
	}

	/**
	 * Return every Pub/Sub message received so far, in the order recorded.
	 * @return the messages
	 */
	public List<Received> received() {
		return List.copyOf(this.received);
	}

	/**
	 * Return how many operations have not ended.
	 * @return the pending operations
	 */
	public int pendingCount() {
		return this.pending.size();
	}

	/**
	 * The handle of one operation in flight.
	 */
	public final class Entry {

		private final Operation started;

		private Entry(Operation started) {
			this.started = started;
		}

		/**
		 * Return the operation as issued.
		 * @return the operation
		 */
		public Operation operation() {
			return this.started;
		}

		/**
		 * Record that the server answered.
		 * @param reply the value returned, if any
		 */
		public void succeeded(@Nullable String reply) {
			end(Outcome.OK, null, reply);
		}

		/**
		 * Record that the operation failed.
		 * @param outcome how
		 * @param failure the failure the caller saw, recorded with its root cause
		 */
		public void failed(Outcome outcome, Throwable failure) {
			Throwable root = failure;
			while (root.getCause() != null && root.getCause() != root) {
				root = root.getCause();
			}
			String error = failure.getClass().getName() + ": " + failure.getMessage();
			end(outcome, (root != failure)
					? error + " (root: " + root.getClass().getName() + ": " + root.getMessage() + ")" : error, null);
		}

		private void end(Outcome outcome, @Nullable String error, @Nullable String reply) {
			Operation started = this.started;
			if (Journal.this.pending.remove(started.id()) == null) {
				return;
			}
			Journal.this.ended.add(new Operation(started.id(), started.worker(), started.kind(), started.key(),
					started.value(), started.startNanos(), Journal.this.clock.getAsLong(), outcome, error, reply));
		}

	}

	/**
	 * One Pub/Sub message as a subscriber received it.
	 *
	 * @param channel the channel it arrived on
	 * @param message the message
	 * @param nanos when it was received (the journal's clock)
	 */
	public record Received(String channel, String message, long nanos) {

	}

}
