/**
 * JMH benchmarks comparing {@code WheelTimer} with Netty's {@code HashedWheelTimer} and a
 * JDK scheduler.
 */
@org.jspecify.annotations.NullMarked
package io.github.lettucetuning.benchmarks.timer;
