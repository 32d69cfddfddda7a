package io.github.lettucetuning.sample.catalog;

import java.math.BigDecimal;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.cache.annotation.Cacheable;
import org.springframework.stereotype.Service;

/**
 * Looks products up in a slow "database", cached in Redis.
 */
@Service
public class CatalogService {

	private final AtomicLong databaseLookups = new AtomicLong();

	@Cacheable("catalog")
	public Product product(long id) {
		this.databaseLookups.incrementAndGet();
		return new Product(id, "Product " + id, BigDecimal.valueOf(100 + id % 900, 2));
	}

	/**
	 * Return how often the cache missed and the "database" was asked.
	 * @return the number of database lookups
	 */
	public long databaseLookups() {
		return this.databaseLookups.get();
	}

}
