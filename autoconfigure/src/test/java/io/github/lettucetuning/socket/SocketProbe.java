package io.github.lettucetuning.socket;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioSocketChannel;
import jdk.net.ExtendedSocketOptions;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Starts an application against a Redis server, sends one command and prints what the
 * connection's socket really got: transport, channel class and its TCP options. Runs in
 * the test JVM or, for a transport Lettuce must choose before it initialises, as the main
 * class of a fresh JVM.
 */
public final class SocketProbe {

	private SocketProbe() {
	}

	/**
	 * Probe, then print {@code key=value} lines.
	 * @param args the Redis port, then {@code name=value} properties
	 */
	public static void main(String[] args) {
		Map<String, String> result = probe(Integer.parseInt(args[0]), Arrays.copyOfRange(args, 1, args.length));
		result.forEach((key, value) -> System.out.println("probe." + key + "=" + value));
		System.exit(0);
	}

	static Map<String, String> probe(int port, String... properties) {
		CopyOnWriteArrayList<Channel> channels = new CopyOnWriteArrayList<>();
		ClientResourcesBuilderCustomizer capture = (builder) -> builder.nettyCustomizer(new NettyCustomizer() {

			@Override
			public void afterChannelInitialized(Channel channel) {
				channels.add(channel);
			}

		});
		Map<String, String> result = new TreeMap<>();
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withBean("captureChannels", ClientResourcesBuilderCustomizer.class, () -> capture)
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port)
			.withPropertyValues(properties)
			.run((context) -> {
				if (context.getStartupFailure() != null) {
					result.put("failure", String.valueOf(context.getStartupFailure()));
					return;
				}
				context.getBean(StringRedisTemplate.class).opsForValue().set("probe", "1");
				context.getBeanProvider(EffectiveSocketSettings.class)
					.ifAvailable((settings) -> result.put("settings", settings.describe()));
				Channel channel = channels.get(0);
				result.put("channel", channel.getClass().getSimpleName());
				result.put("option.SO_KEEPALIVE",
						String.valueOf(channel.config().getOption(ChannelOption.SO_KEEPALIVE)));
				for (String transport : new String[] { "io.netty.channel.epoll.EpollChannelOption",
						"io.netty.channel.uring.IoUringChannelOption" }) {
					for (String name : new String[] { "TCP_USER_TIMEOUT", "TCP_KEEPIDLE", "TCP_KEEPINTVL",
							"TCP_KEEPCNT" }) {
						if (ChannelOption.exists(transport + "#" + name)) {
							Object value = channel.config().getOption(ChannelOption.valueOf(transport + "#" + name));
							if (value != null) {
								result.put("option." + name, String.valueOf(value));
							}
						}
					}
				}
				if (channel instanceof NioSocketChannel) {
					result.put("option.TCP_KEEPIDLE", String
						.valueOf(channel.config().getOption(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPIDLE))));
				}
			});
		return result;
	}

}
