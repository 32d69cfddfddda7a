package io.github.lettucetuning.resilience;

import java.net.SocketAddress;
import java.time.Duration;

import io.lettuce.core.protocol.MaintenanceAwareComponent;

/**
 * Whether the server announced maintenance to one connection and has not yet announced
 * its end: Lettuce's {@code MaintenanceAwareConnectionWatchdog} tells it of the
 * {@code MIGRATING} / {@code MIGRATED}, {@code FAILING_OVER} / {@code FAILED_OVER} and
 * {@code MOVING} notifications it parses, on the connection's event loop. While a window
 * is open, Lettuce relaxes its command timeouts, the connection's stall check does not
 * count the server's silence against it, and a channel the server closes in it keeps the
 * window, for a bounded time, as the reconnect's fail-fast grace
 * ({@link ConnectionLink}). One per connection, across its channels, like the watchdog it
 * listens to.
 */
final class MaintenanceWindow implements MaintenanceAwareComponent {

	private final MaintenanceNotifications notifications;

	private volatile boolean open;

	// Set when the channel closed in a window: the window then lasts until the connection
	// is back or this deadline passes, whichever comes first.
	private volatile long carriedUntilNanos;

	MaintenanceWindow(MaintenanceNotifications notifications) {
		this.notifications = notifications;
	}

	boolean isOpen() {
		return this.open && (this.carriedUntilNanos == 0 || this.carriedUntilNanos - System.nanoTime() > 0);
	}

	long carriedUntilNanos() {
		return this.carriedUntilNanos;
	}

	@Override
	public void onMigrateStarted(String shards) {
		this.notifications.notificationReceived();
		open();
	}

	@Override
	public void onMigrateCompleted(String shards) {
		this.notifications.notificationReceived();
		close();
	}

	@Override
	public void onFailoverStarted(String shards) {
		this.notifications.notificationReceived();
		open();
	}

	@Override
	public void onFailoverCompleted(String shards) {
		this.notifications.notificationReceived();
		close();
	}

	@Override
	public void onRebindStarted(Duration time, SocketAddress endpoint) {
		this.notifications.notificationReceived();
		open();
	}

	@Override
	public void onRebindCompleted() {
		close();
	}

	// A server that closes the connection in a window (a rebind, a failover) may not
	// announce the end on the next one: the window outlives its channel for at most
	// the given time, so that the reconnect's grace is not counted against the server.
	boolean channelClosed(Duration carry) {
		// Failed reconnects close channels too; they do not extend the window.
		if (!this.open || this.carriedUntilNanos != 0) {
			return false;
		}
		this.carriedUntilNanos = System.nanoTime() + carry.toNanos();
		return true;
	}

	// The connection is back, or gone for good, or the carried window's time is up.
	void end() {
		close();
	}

	private void open() {
		this.carriedUntilNanos = 0;
		if (!this.open) {
			this.open = true;
			this.notifications.windowOpened();
		}
	}

	private void close() {
		this.carriedUntilNanos = 0;
		if (this.open) {
			this.open = false;
			this.notifications.windowClosed();
		}
	}

}
