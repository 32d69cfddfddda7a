package io.github.lettucetuning.testsupport;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.FreePorts;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.github.lettucetuning.testsupport.topology.RedisTopology;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks that closing topologies leaves no process, port or directory behind, including
 * nodes that were paused, killed or added along the way.
 */
class ProcessLeakIntegrationTests {

	@Test
	void closedTopologiesLeaveNothingBehind() {
		List<RedisTopology> topologies = new ArrayList<>();
		List<RedisNode> nodes = new ArrayList<>();
		try {
			RedisStandalone standalone = start(topologies, RedisStandalone.start());
			RedisSentinelTopology sentinel = start(topologies, RedisSentinelTopology.start());
			RedisClusterTopology cluster = start(topologies, RedisClusterTopology.start());
			RedisNode added = cluster.addEmptyMaster();
			Faults.pause(standalone.node());
			Faults.pause(sentinel.sentinels().get(0));
			Faults.kill(cluster.replicas().get(0));
			topologies.forEach((topology) -> nodes.addAll(topology.nodes()));
			assertThat(nodes).hasSize(1 + 5 + 7).contains(added);
		}
		finally {
			topologies.forEach(RedisTopology::close);
		}
		for (RedisNode node : nodes) {
			assertThat(node.isAlive()).as("%s alive", node).isFalse();
			assertThat(ProcessHandle.of(node.pid()).filter(ProcessHandle::isAlive)).as("process of %s", node).isEmpty();
			assertThat(FreePorts.isFree(node.port())).as("port of %s", node).isTrue();
			if (node.config().isClusterEnabled()) {
				assertThat(FreePorts.isFree(node.port() + 10000)).as("cluster bus port of %s", node).isTrue();
			}
			assertThat(node.directory()).as("directory of %s", node).doesNotExist();
		}
		assertThat(pidFiles(nodes)).allSatisfy((pidFile) -> assertThat(pidFile).doesNotExist());
	}

	private static <T extends RedisTopology> T start(List<RedisTopology> topologies, T topology) {
		topologies.add(topology);
		return topology;
	}

	private static List<Path> pidFiles(List<RedisNode> nodes) {
		Path pids = io.github.lettucetuning.testsupport.server.RedisProcessRegistry.workDirectory().resolve("pids");
		return nodes.stream().map((node) -> pids.resolve(node.pid() + ".pid")).toList();
	}

}
