/**
 * Wiring of the near cache into Spring Boot's RedisCacheManager.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure.nearcache;

import org.jspecify.annotations.NullMarked;
