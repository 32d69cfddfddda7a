/**
 * Near cache for Spring Data's RedisCache: values kept in the application's memory and
 * dropped when Redis reports, through client tracking, that their key changed.
 */
@NullMarked
package io.github.lettucetuning.nearcache;

import org.jspecify.annotations.NullMarked;
