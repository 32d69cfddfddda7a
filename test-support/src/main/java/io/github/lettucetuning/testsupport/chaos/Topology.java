package io.github.lettucetuning.testsupport.chaos;

/**
 * The topology a campaign runs against.
 */
public enum Topology {

	/**
	 * One server.
	 */
	STANDALONE,

	/**
	 * A master, a replica and Sentinels.
	 */
	SENTINEL,

	/**
	 * A cluster of masters and replicas.
	 */
	CLUSTER

}
