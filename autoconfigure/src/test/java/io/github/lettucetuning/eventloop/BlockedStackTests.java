package io.github.lettucetuning.eventloop;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a blocked loop's stack says: Lettuce decoding a reply, or application code,
 * including application code that a reply's completion called back from Lettuce's
 * decoder.
 */
class BlockedStackTests {

	private static final StackTraceElement LOOP_RUN = frame("io.netty.channel.nio.NioIoHandler", "run");

	private static final StackTraceElement CHANNEL_READ = frame("io.lettuce.core.protocol.CommandHandler",
			"channelRead");

	private static final StackTraceElement DECODE = frame("io.lettuce.core.protocol.CommandHandler", "decode");

	@Test
	void aMapBeingFilledIsDecoding() {
		StackTraceElement[] stack = { frame("java.util.HashMap", "putVal"),
				frame("io.lettuce.core.output.MapOutput", "set"),
				frame("io.lettuce.core.protocol.RedisStateMachine", "safeSet"),
				frame("io.lettuce.core.protocol.RedisStateMachine", "decode"), DECODE, CHANNEL_READ, LOOP_RUN };
		assertThat(BlockedStack.decoding(stack)).isEqualTo("MapOutput");
		assertThat(BlockedStack.blockedAt(stack)).startsWith("io.lettuce.core.output.MapOutput.set(");
	}

	@Test
	void theStateMachineAloneIsDecodingAReply() {
		StackTraceElement[] stack = { frame("io.netty.buffer.AbstractByteBuf", "forEachByte"),
				frame("io.lettuce.core.protocol.RedisStateMachine", "readLine"),
				frame("io.lettuce.core.protocol.RedisStateMachine", "decode"), DECODE, CHANNEL_READ, LOOP_RUN };
		assertThat(BlockedStack.decoding(stack)).isEmpty();
	}

	// As CI once sampled a loop decoding a large hash: the innermost frame is Netty's
	// unsafe byte read, under the buffer and the state machine.
	@Test
	void aByteReadUnderTheStateMachineIsDecoding() {
		StackTraceElement[] stack = { frame("io.netty.util.internal.PlatformDependent", "getByte"),
				frame("io.netty.buffer.UnsafeByteBufUtil", "getByte"),
				frame("io.netty.buffer.AbstractByteBuf", "getByte"),
				frame("io.lettuce.core.protocol.RedisStateMachine", "readLine"),
				frame("io.lettuce.core.protocol.RedisStateMachine", "decode"), DECODE, CHANNEL_READ, LOOP_RUN };
		assertThat(BlockedStack.decoding(stack)).isEmpty();
		assertThat(BlockedStack.blockedAt(stack)).startsWith("io.netty.util.internal.PlatformDependent.getByte(");
	}

	@Test
	void applicationCodeCalledBackFromTheDecoderIsNotDecoding() {
		StackTraceElement[] stack = { frame("java.lang.Thread", "sleep"), frame("com.example.Handler", "slow"),
				frame("reactor.core.publisher.FluxMap$MapSubscriber", "onNext"),
				frame("io.lettuce.core.protocol.AsyncCommand", "complete"),
				frame("io.lettuce.core.protocol.CommandHandler", "complete"), DECODE, CHANNEL_READ, LOOP_RUN };
		assertThat(BlockedStack.decoding(stack)).isNull();
		assertThat(BlockedStack.blockedAt(stack)).startsWith("com.example.Handler.slow(");
	}

	@Test
	void aReactorOperatorCompletingFromTheHandlerIsNotDecoding() {
		StackTraceElement[] stack = { frame("reactor.core.publisher.FluxMap$MapSubscriber", "onNext"),
				frame("io.lettuce.core.protocol.CommandHandler", "complete"), DECODE, CHANNEL_READ, LOOP_RUN };
		assertThat(BlockedStack.decoding(stack)).isNull();
	}

	@Test
	void aLoopInItsSelectorIsIdleNotBlocked() {
		StackTraceElement[] epoll = { frame("io.netty.channel.epoll.Native", "epollWait0"),
				frame("io.netty.channel.epoll.Native", "epollWait"),
				frame("io.netty.channel.epoll.EpollIoHandler", "epollWait"), LOOP_RUN };
		StackTraceElement[] nio = { frame("sun.nio.ch.EPoll", "wait"), frame("sun.nio.ch.SelectorImpl", "select"),
				frame("io.netty.channel.nio.SelectedSelectionKeySetSelector", "select"),
				frame("io.netty.channel.nio.NioIoHandler", "select"), LOOP_RUN };
		StackTraceElement[] tasks = { frame("java.util.concurrent.LinkedBlockingQueue", "take"),
				frame("io.netty.util.concurrent.SingleThreadEventExecutor", "takeTask"),
				frame("io.netty.channel.DefaultEventLoop", "run") };
		assertThat(BlockedStack.idle(epoll)).isTrue();
		assertThat(BlockedStack.idle(nio)).isTrue();
		assertThat(BlockedStack.idle(tasks)).isTrue();
		assertThat(BlockedStack.idle(new StackTraceElement[] { frame("java.lang.Thread", "sleep"),
				frame("com.example.Handler", "slow"), LOOP_RUN }))
			.isFalse();
	}

	private static StackTraceElement frame(String type, String method) {
		return new StackTraceElement(type, method, type.substring(type.lastIndexOf('.') + 1) + ".java", 1);
	}

}
