package io.github.lettucetuning.connection;

/**
 * How a {@link LettuceTuningConnectionFactory} spreads plain commands over native
 * connections: the mode, its number of shared connections and the policy that picks one.
 * What the modes change, and nothing else.
 *
 * @since 0.2.0
 */
public final class ConnectionSharing {

	private final ConnectionMode mode;

	private final int connections;

	private final SelectionPolicy selectionPolicy;

	private ConnectionSharing(Builder builder) {
		if (builder.connections < 1 || (builder.mode != ConnectionMode.MULTI && builder.connections != 1)) {
			throw new IllegalArgumentException(
					"Mode " + builder.mode + " cannot use " + builder.connections + " shared connections");
		}
		this.mode = builder.mode;
		this.connections = builder.connections;
		this.selectionPolicy = builder.selectionPolicy;
	}

	/**
	 * Return a builder that starts from one shared connection.
	 * @return a builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Return the connection mode.
	 * @return the mode
	 */
	public ConnectionMode mode() {
		return this.mode;
	}

	/**
	 * Return the number of shared connections of each API.
	 * @return {@code 1} unless the mode is {@link ConnectionMode#MULTI}
	 */
	public int connections() {
		return this.connections;
	}

	/**
	 * Return the policy that picks a shared connection per operation.
	 * @return the selection policy
	 */
	public SelectionPolicy selectionPolicy() {
		return this.selectionPolicy;
	}

	/**
	 * Return whether plain commands go over shared connections rather than a pool.
	 * @return whether the native connection is shared
	 */
	boolean sharesNativeConnection() {
		return this.mode != ConnectionMode.POOLED;
	}

	@Override
	public String toString() {
		return this.mode + " (" + this.connections + " connections, " + this.selectionPolicy + ")";
	}

	/**
	 * Builds {@link ConnectionSharing}.
	 */
	public static final class Builder {

		private ConnectionMode mode = ConnectionMode.SHARED;

		private int connections = 1;

		private SelectionPolicy selectionPolicy = SelectionPolicy.ROUND_ROBIN;

		private Builder() {
		}

		/**
		 * Set the connection mode.
		 * @param mode how plain commands are spread over connections
		 * @return this builder
		 */
		public Builder mode(ConnectionMode mode) {
			this.mode = mode;
			return this;
		}

		/**
		 * Set the number of shared connections.
		 * @param connections {@code 1} unless the mode is {@link ConnectionMode#MULTI}
		 * @return this builder
		 */
		public Builder connections(int connections) {
			this.connections = connections;
			return this;
		}

		/**
		 * Set how a shared connection is picked per operation.
		 * @param selectionPolicy the policy
		 * @return this builder
		 */
		public Builder selectionPolicy(SelectionPolicy selectionPolicy) {
			this.selectionPolicy = selectionPolicy;
			return this;
		}

		/**
		 * Build the options.
		 * @return the options
		 * @throws IllegalArgumentException if the mode cannot use that many connections
		 */
		public ConnectionSharing build() {
			return new ConnectionSharing(this);
		}

	}

}
