/**
 * A leaderboard on a sorted set.
 */
@NullMarked
package io.github.lettucetuning.sample.leaderboard;

import org.jspecify.annotations.NullMarked;
