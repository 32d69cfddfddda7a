package io.github.lettucetuning.nearcache;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The near caches of the application, as the read side (meters, endpoint) sees them:
 * which caches were named, how much the store keeps, and the writer that keeps their
 * values once the cache manager has been built with it. The writer is created when the
 * cache manager is, which may be after whoever reads this was given it.
 *
 * @since 0.1.0
 */
public final class NearCaches {

	private final List<String> caches;

	private final NearCacheWriter.Bound bound;

	private volatile @Nullable NearCacheWriter writer;

	/**
	 * Create the near caches of the given names.
	 * @param caches the cache names, or {@code *} for every cache
	 * @param bound how much the store keeps
	 */
	public NearCaches(List<String> caches, NearCacheWriter.Bound bound) {
		Assert.notNull(caches, "'caches' must not be null");
		Assert.notNull(bound, "'bound' must not be null");
		this.caches = List.copyOf(caches);
		this.bound = bound;
	}

	/**
	 * The cache names that were named, as configured.
	 * @return the names, or {@code *} for every cache
	 */
	public List<String> caches() {
		return this.caches;
	}

	/**
	 * How much the store keeps, over all near caches.
	 * @return the bound
	 */
	public NearCacheWriter.Bound bound() {
		return this.bound;
	}

	/**
	 * The writer in use.
	 * @return the writer, or {@code null} until a cache manager was built with one
	 */
	public @Nullable NearCacheWriter writer() {
		return this.writer;
	}

	/**
	 * Set the writer in use.
	 * @param writer the writer the cache manager was built with
	 */
	public void use(NearCacheWriter writer) {
		Assert.notNull(writer, "'writer' must not be null");
		this.writer = writer;
	}

}
