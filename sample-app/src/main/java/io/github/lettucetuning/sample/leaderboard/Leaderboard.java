package io.github.lettucetuning.sample.leaderboard;

import java.util.List;
import java.util.Set;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Scores players in a sorted set.
 */
@Service
@RestController
public class Leaderboard {

	static final String KEY = "leaderboard";

	private final StringRedisTemplate redis;

	Leaderboard(StringRedisTemplate redis) {
		this.redis = redis;
	}

	@PostMapping("/leaderboard/{player}")
	public double score(@PathVariable String player, @RequestParam(defaultValue = "1") double points) {
		Double score = this.redis.opsForZSet().incrementScore(KEY, player, points);
		return (score != null) ? score : 0;
	}

	@GetMapping("/leaderboard")
	public List<Entry> top(@RequestParam(defaultValue = "10") int size) {
		Set<TypedTuple<String>> top = this.redis.opsForZSet().reverseRangeWithScores(KEY, 0, size - 1);
		return (top != null) ? top.stream().map(Entry::of).toList() : List.of();
	}

	/**
	 * A player and their score.
	 *
	 * @param player the player
	 * @param score the score
	 */
	public record Entry(String player, double score) {

		static Entry of(TypedTuple<String> tuple) {
			Double score = tuple.getScore();
			return new Entry(String.valueOf(tuple.getValue()), (score != null) ? score : 0);
		}

	}

}
