package io.github.lettucetuning.connection;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link CommandCountingConnection#count}: when a reactive command counts as in
 * flight.
 */
class CommandCountingConnectionTests {

	private final AtomicInteger inFlight = new AtomicInteger();

	@Test
	void aCommandCountsFromItsFirstRequestUntilItCompletes() {
		Sinks.One<String> reply = Sinks.one();
		Subscriber subscriber = subscribe(CommandCountingConnection.count(reply.asMono(), this.inFlight));
		assertThat(this.inFlight).hasValue(0);
		subscriber.request(1);
		subscriber.request(1);
		assertThat(this.inFlight).hasValue(1);
		reply.tryEmitValue("OK");
		assertThat(this.inFlight).hasValue(0);
	}

	@Test
	void aSubscriptionThatNeverRequestsNeverCounts() {
		subscribe(CommandCountingConnection.count(Mono.never(), this.inFlight));
		assertThat(this.inFlight).hasValue(0);
	}

	@Test
	void cancellationBeforeTheRequestLeavesTheCountAlone() {
		Subscriber subscriber = subscribe(CommandCountingConnection.count(Mono.never(), this.inFlight));
		subscriber.cancel();
		subscriber.request(1);
		assertThat(this.inFlight).hasValue(0);
	}

	@Test
	void cancellationAfterTheRequestUncountsOnce() {
		Subscriber subscriber = subscribe(CommandCountingConnection.count(Mono.never(), this.inFlight));
		subscriber.request(1);
		subscriber.cancel();
		subscriber.cancel();
		assertThat(this.inFlight).hasValue(0);
	}

	@Test
	void anErrorUncounts() {
		Subscriber subscriber = subscribe(
				CommandCountingConnection.count(Mono.error(new IllegalStateException("ERR")), this.inFlight));
		subscriber.request(1);
		assertThat(this.inFlight).hasValue(0);
	}

	@Test
	void aFluxCountsOnceWhateverItsDemand() {
		Sinks.Many<String> replies = Sinks.many().unicast().onBackpressureBuffer();
		Subscriber subscriber = subscribe(CommandCountingConnection.count(replies.asFlux(), this.inFlight));
		subscriber.request(1);
		replies.tryEmitNext("a");
		subscriber.request(1);
		assertThat(this.inFlight).hasValue(1);
		replies.tryEmitComplete();
		assertThat(this.inFlight).hasValue(0);
		assertThat(Flux.range(0, 3).as((flux) -> CommandCountingConnection.count(flux, this.inFlight)).count().block())
			.isEqualTo(3);
		assertThat(this.inFlight).hasValue(0);
	}

	private static <T> Subscriber subscribe(Publisher<T> publisher) {
		Subscriber subscriber = new Subscriber();
		publisher.subscribe(subscriber);
		return subscriber;
	}

	private static final class Subscriber extends BaseSubscriber<Object> {

		@Override
		protected void hookOnSubscribe(Subscription subscription) {
			// Demand comes from the test
		}

	}

}
