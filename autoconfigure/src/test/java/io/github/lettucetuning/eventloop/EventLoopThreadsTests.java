package io.github.lettucetuning.eventloop;

import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import reactor.core.scheduler.NonBlocking;
import reactor.core.scheduler.Schedulers;

import org.springframework.dao.InvalidDataAccessApiUsageException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Which threads count as the client's event loops, and what the guard says on one.
 */
class EventLoopThreadsTests {

	private final EventLoopThreadFactoryProvider provider = new EventLoopThreadFactoryProvider();

	@Test
	void ioPoolsGetNonBlockingEventLoopThreadsNamedAsLettuceNamesThem() {
		for (String pool : new String[] { "lettuce-epollEventLoop", "lettuce-nioEventLoop", "lettuce-kqueueEventLoop",
				"lettuce-io_uringEventLoop" }) {
			Thread thread = this.provider.getThreadFactory(pool).newThread(() -> {
			});
			assertThat(thread).isInstanceOf(EventLoopThread.class).isInstanceOf(NonBlocking.class);
			assertThat(thread.getName()).startsWith(pool + "-");
			assertThat(thread.isDaemon()).isTrue();
		}
	}

	@Test
	void theComputationPoolGetsPlainThreads() {
		Thread thread = this.provider.getThreadFactory("lettuce-eventExecutorLoop").newThread(() -> {
		});
		assertThat(thread).isNotInstanceOf(EventLoopThread.class).isNotInstanceOf(NonBlocking.class);
		assertThat(thread.getName()).startsWith("lettuce-eventExecutorLoop-");
	}

	@Test
	void aCallOnAnEventLoopThreadIsRefusedWithTheThreadAndTheFix() throws Exception {
		AtomicReference<Throwable> failure = new AtomicReference<>();
		AtomicReference<Boolean> reactorSeesNonBlocking = new AtomicReference<>();
		Thread thread = this.provider.getThreadFactory("lettuce-nioEventLoop").newThread(() -> {
			reactorSeesNonBlocking.set(Schedulers.isInNonBlockingThread());
			try {
				BlockingCallGuard.rejectOnEventLoop();
			}
			catch (RuntimeException ex) {
				failure.set(ex);
			}
		});
		thread.start();
		thread.join(5000);
		assertThat(reactorSeesNonBlocking.get()).isTrue();
		assertThat(failure.get()).isInstanceOf(InvalidDataAccessApiUsageException.class)
			.hasMessageStartingWith("A synchronous Redis call")
			.hasMessageContaining("ran on " + thread.getName())
			.hasMessageContaining("publishOn(Schedulers.boundedElastic())")
			.hasMessageContaining("ReactiveRedisTemplate");
	}

	@Test
	void aCallOnAnyOtherThreadPasses() {
		assertThat(BlockingCallGuard.onEventLoop()).isFalse();
		assertThatNoException().isThrownBy(BlockingCallGuard::rejectOnEventLoop);
	}

}
