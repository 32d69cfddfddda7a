package io.github.lettucetuning.testsupport.server;

/**
 * Main class of a child JVM that starts a node and then waits to be killed with SIGKILL,
 * leaving the node orphaned.
 */
public final class OrphanMaker {

	static final String MARKER = "ORPHAN";

	private OrphanMaker() {
	}

	public static void main(String[] args) throws InterruptedException {
		RedisNode node = new RedisServerLauncher().start(RedisServerConfig.defaults().withName("orphan"));
		System.out.println(MARKER + " " + node.pid() + " " + node.port() + " " + node.directory());
		System.out.flush();
		Thread.sleep(120_000);
	}

}
