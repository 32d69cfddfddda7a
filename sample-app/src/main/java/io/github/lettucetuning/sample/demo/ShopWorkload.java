package io.github.lettucetuning.sample.demo;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import io.github.lettucetuning.sample.catalog.CatalogService;
import io.github.lettucetuning.sample.counter.VisitCounter;
import io.github.lettucetuning.sample.jobs.JobQueue;
import io.github.lettucetuning.sample.leaderboard.Leaderboard;
import io.github.lettucetuning.sample.orders.OrderService;

/**
 * One request of a shop's traffic, drawn at random: mostly cached catalog reads, then
 * counters and scores, a few orders (transactions) and jobs (blocking pops).
 */
class ShopWorkload {

	private final CatalogService catalog;

	private final VisitCounter visits;

	private final Leaderboard leaderboard;

	private final OrderService orders;

	private final JobQueue jobs;

	ShopWorkload(CatalogService catalog, VisitCounter visits, Leaderboard leaderboard, OrderService orders,
			JobQueue jobs) {
		this.catalog = catalog;
		this.visits = visits;
		this.leaderboard = leaderboard;
		this.orders = orders;
		this.jobs = jobs;
	}

	void request() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		int dice = random.nextInt(100);
		if (dice < 50) {
			this.catalog.product(random.nextInt(200));
		}
		else if (dice < 70) {
			this.visits.visit("page-" + random.nextInt(10));
		}
		else if (dice < 90) {
			this.leaderboard.score("player-" + random.nextInt(50), 1);
		}
		else if (dice < 95) {
			this.orders.place("sku-" + random.nextInt(20), 1);
		}
		else {
			this.jobs.submit("job-" + random.nextInt(1000));
			this.jobs.take(Duration.ofSeconds(1));
		}
	}

}
