package io.github.lettucetuning.resilience;

import java.net.InetSocketAddress;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link MaintenanceWindow}.
 */
class MaintenanceWindowTests {

	private final MaintenanceNotifications notifications = new MaintenanceNotifications();

	private final MaintenanceWindow window = new MaintenanceWindow(this.notifications);

	@Test
	void migrationOpensAndClosesTheWindowOnce() {
		this.window.onMigrateStarted("1");
		this.window.onMigrateStarted("2");
		assertThat(this.window.isOpen()).isTrue();
		assertThat(this.notifications.connectionsInWindow()).isEqualTo(1);
		this.window.onMigrateCompleted("1");
		this.window.onMigrateCompleted("2");
		assertThat(this.window.isOpen()).isFalse();
		assertThat(this.notifications.connectionsInWindow()).isZero();
		assertThat(this.notifications.received()).isEqualTo(4);
	}

	@Test
	void failoverAndRebindOpenTheWindowToo() {
		this.window.onFailoverStarted("1");
		assertThat(this.window.isOpen()).isTrue();
		this.window.onFailoverCompleted("1");
		this.window.onRebindStarted(Duration.ofSeconds(5), new InetSocketAddress("127.0.0.1", 6380));
		assertThat(this.window.isOpen()).isTrue();
		this.window.onRebindCompleted();
		assertThat(this.window.isOpen()).isFalse();
		assertThat(this.notifications.connectionsInWindow()).isZero();
		assertThat(this.notifications.received()).isEqualTo(3);
	}

	@Test
	void closedChannelCarriesTheWindowUntilItEnds() {
		this.window.onMigrateStarted("1");
		assertThat(this.window.channelClosed(Duration.ofSeconds(10))).isTrue();
		assertThat(this.window.channelClosed(Duration.ofSeconds(10))).as("failed reconnect").isFalse();
		assertThat(this.window.isOpen()).isTrue();
		this.window.end();
		assertThat(this.window.isOpen()).isFalse();
		assertThat(this.notifications.connectionsInWindow()).isZero();
		assertThat(this.window.channelClosed(Duration.ofSeconds(10))).isFalse();
	}

	@Test
	void carriedWindowClosesAtItsDeadline() {
		this.window.onMigrateStarted("1");
		this.window.channelClosed(Duration.ZERO);
		assertThat(this.window.isOpen()).isFalse();
		assertThat(this.notifications.connectionsInWindow()).isEqualTo(1);
		this.window.end();
		assertThat(this.notifications.connectionsInWindow()).isZero();
	}

}
