/**
 * A job queue drained with BLPOP, a blocking command on a dedicated connection.
 */
@NullMarked
package io.github.lettucetuning.sample.jobs;

import org.jspecify.annotations.NullMarked;
