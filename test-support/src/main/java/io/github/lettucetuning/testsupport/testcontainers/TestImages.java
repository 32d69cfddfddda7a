package io.github.lettucetuning.testsupport.testcontainers;

import org.testcontainers.utility.DockerImageName;

/**
 * The one place where container image tags are pinned.
 */
public final class TestImages {

	/**
	 * The Redis image used by {@link RedisContainerStandalone}.
	 */
	public static final String REDIS = "redis:7.4-alpine";

	private TestImages() {
	}

	public static DockerImageName redis() {
		return DockerImageName.parse(REDIS);
	}

}
