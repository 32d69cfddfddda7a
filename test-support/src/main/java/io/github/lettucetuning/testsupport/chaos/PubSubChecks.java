package io.github.lettucetuning.testsupport.chaos;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The Pub/Sub invariants of {@link Invariants}, <b>message-belongs</b> and
 * <b>pubsub-after-recovery</b>, with the {@code PUBLISH} operations and the messages
 * received indexed once per check.
 */
final class PubSubChecks {

	private static final int MAX_LISTED = 5;

	private static final int MAX_MESSAGE_VIOLATIONS = 50;

	private final List<Journal.Received> received;

	private final List<Operation> publishes = new ArrayList<>();

	private final Map<String, Operation> publishedByMessage = new HashMap<>();

	private final Set<String> receivedMessages = new HashSet<>();

	PubSubChecks(List<Operation> operations, List<Journal.Received> received) {
		this.received = received;
		for (Operation operation : operations) {
			if (operation.kind() == OpKind.PUBLISH && operation.value() != null) {
				this.publishes.add(operation);
				this.publishedByMessage.merge(operation.key() + '\n' + operation.value(), operation,
						(a, b) -> (b.startNanos() - a.startNanos() < 0) ? b : a);
			}
		}
		for (Journal.Received message : received) {
			this.receivedMessages.add(message.channel() + '\n' + message.message());
		}
	}

	void checkMessagesBelong(List<Violation> violations) {
		int broken = 0;
		for (Journal.Received message : this.received) {
			String problem = problem(message);
			if (problem != null && ++broken <= MAX_MESSAGE_VIOLATIONS) {
				violations.add(new Violation("message-belongs", problem, null));
			}
		}
		if (broken > MAX_MESSAGE_VIOLATIONS) {
			violations.add(new Violation("message-belongs",
					(broken - MAX_MESSAGE_VIOLATIONS) + " more messages broke it, not listed", null));
		}
	}

	private @Nullable String problem(Journal.Received message) {
		Values.Written written = Values.parse(message.message());
		if (written == null || !written.key().equals(message.channel())) {
			return "received " + message.message() + " on channel " + message.channel();
		}
		Operation publish = this.publishedByMessage.get(message.channel() + '\n' + message.message());
		if (publish == null || publish.startNanos() - message.nanos() > 0) {
			return "received " + message.message() + " on channel " + message.channel()
					+ ", which no PUBLISH had sent by then";
		}
		return null;
	}

	void checkSettledWindows(List<Window> windows, List<Violation> violations) {
		for (Window window : windows) {
			int published = 0;
			List<Operation> missed = new ArrayList<>();
			for (Operation publish : this.publishes) {
				if (publish.outcome() == Outcome.OK && window.holds(publish)) {
					published++;
					if (!this.receivedMessages.contains(publish.key() + '\n' + publish.value())) {
						missed.add(publish);
					}
				}
			}
			if (!missed.isEmpty()) {
				List<String> examples = missed.stream().limit(MAX_LISTED).map(Operation::value).toList();
				violations
					.add(new Violation("pubsub-after-recovery",
							missed.size() + " of " + published + " messages published in the settled window after "
									+ window.after().fault() + " were never received, e.g. " + examples,
							missed.get(0)));
			}
		}
	}

	/**
	 * A settled window.
	 *
	 * @param after the fault whose heal (and the heal of every fault under way with it)
	 * opened the window
	 * @param startNanos a recovery bound after that heal
	 * @param endNanos when the next fault was injected, or {@link Long#MAX_VALUE} for the
	 * end of the run
	 */
	record Window(InjectedFault after, long startNanos, long endNanos) {

		boolean holds(Operation operation) {
			return operation.startNanos() - this.startNanos >= 0
					&& (this.endNanos == Long.MAX_VALUE || this.endNanos - operation.endNanos() > 0);
		}

	}

}
