package io.github.lettucetuning.testsupport.server;

/**
 * Thrown when a node lost the race for its port to another process, so the launcher can
 * retry on another port.
 */
class PortConflictException extends RedisServerException {

	PortConflictException(String message) {
		super(message);
	}

}
