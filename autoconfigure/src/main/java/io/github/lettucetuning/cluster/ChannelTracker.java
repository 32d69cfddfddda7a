package io.github.lettucetuning.cluster;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;

/**
 * Remembers every Netty channel Lettuce opens, so that the channels to one server can be
 * closed. Closing a channel, unlike closing a Lettuce connection, makes Lettuce
 * reconnect, and a connection defined through Sentinel asks Sentinel for the master again
 * on reconnect. Register it with {@code ClientResources.Builder#nettyCustomizer};
 * channels leave the tracker when they close.
 *
 * @since 0.1.0
 */
public final class ChannelTracker implements NettyCustomizer {

	private final ChannelGroup channels = new DefaultChannelGroup("lettuce-tuning", GlobalEventExecutor.INSTANCE);

	@Override
	public void afterChannelInitialized(Channel channel) {
		this.channels.add(channel);
	}

	/**
	 * Close every open channel connected to a server.
	 * @param host the server's IP address or host name
	 * @param port the server's port
	 * @return how many channels were closed
	 */
	public int closeChannelsTo(String host, int port) {
		int closed = 0;
		for (Channel channel : this.channels) {
			if (isConnectedTo(channel.remoteAddress(), host, port)) {
				channel.close();
				closed++;
			}
		}
		return closed;
	}

	/**
	 * Return the number of open channels.
	 * @return the number of channels
	 */
	public int size() {
		return this.channels.size();
	}

	private static boolean isConnectedTo(SocketAddress address, String host, int port) {
		if (!(address instanceof InetSocketAddress inet) || inet.getPort() != port) {
			return false;
		}
		return host.equalsIgnoreCase(inet.getHostString())
				|| (inet.getAddress() != null && host.equals(inet.getAddress().getHostAddress()));
	}

}
