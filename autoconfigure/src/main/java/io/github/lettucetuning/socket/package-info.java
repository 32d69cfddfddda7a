/**
 * Runtime support for sockets: the Netty transport Lettuce uses and the socket settings
 * in effect.
 */
@NullMarked
package io.github.lettucetuning.socket;

import org.jspecify.annotations.NullMarked;
