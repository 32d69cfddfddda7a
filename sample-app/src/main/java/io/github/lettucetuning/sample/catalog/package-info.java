/**
 * A product catalog read through Spring's cache on Redis.
 */
@NullMarked
package io.github.lettucetuning.sample.catalog;

import org.jspecify.annotations.NullMarked;
