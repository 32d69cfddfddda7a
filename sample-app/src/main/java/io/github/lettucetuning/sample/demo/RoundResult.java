package io.github.lettucetuning.sample.demo;

/**
 * What one setup of the demo measured.
 *
 * @param setup the setup's name
 * @param requestsPerSecond completed requests per second over the measurement
 * @param p99Millis the 99th percentile request latency in milliseconds
 * @param errors the number of failed requests
 * @param connections the application's connections the Redis server counted
 */
record RoundResult(String setup, long requestsPerSecond, double p99Millis, long errors, long connections) {

}
