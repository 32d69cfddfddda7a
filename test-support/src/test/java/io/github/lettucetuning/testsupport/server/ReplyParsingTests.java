package io.github.lettucetuning.testsupport.server;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisInfo} and {@link ClientInfo}.
 */
class ReplyParsingTests {

	@Test
	void parsesInfoSkippingHeadersAndBlankLines() {
		Map<String, String> info = RedisInfo
			.parse("# Replication\r\nrole:slave\r\nmaster_host:127.0.0.1\r\n\r\nmaster_link_status:up\r\n");
		assertThat(info).containsExactly(Map.entry("role", "slave"), Map.entry("master_host", "127.0.0.1"),
				Map.entry("master_link_status", "up"));
	}

	@Test
	void keepsColonsInInfoValues() {
		assertThat(RedisInfo.parse("slave0:ip=127.0.0.1,port=7001,state=online\n")).containsEntry("slave0",
				"ip=127.0.0.1,port=7001,state=online");
	}

	@Test
	void parsesClientList() {
		List<ClientInfo> clients = ClientInfo.parseList(
				"id=3 addr=127.0.0.1:50462 laddr=127.0.0.1:6379 fd=8 name=orders age=2 idle=0 flags=N db=0 cmd=client|list\n"
						+ "id=7 addr=127.0.0.1:50470 laddr=127.0.0.1:6379 fd=9 name= age=1 idle=1 flags=N db=0 cmd=ping\n");
		assertThat(clients).hasSize(2);
		assertThat(clients.get(0).id()).isEqualTo(3);
		assertThat(clients.get(0).name()).isEqualTo("orders");
		assertThat(clients.get(0).addr()).isEqualTo("127.0.0.1:50462");
		assertThat(clients.get(0).cmd()).isEqualTo("client|list");
		assertThat(clients.get(0).fields()).containsEntry("laddr", "127.0.0.1:6379");
		assertThat(clients.get(1).name()).isEmpty();
	}

}
