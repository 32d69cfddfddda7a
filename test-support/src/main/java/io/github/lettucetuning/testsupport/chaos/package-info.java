/**
 * Fault campaigns: a schedule of overlapping faults drawn from a seed, a journal of every
 * operation the workers issue, and the invariants checked against it afterwards.
 */
@NullMarked
package io.github.lettucetuning.testsupport.chaos;

import org.jspecify.annotations.NullMarked;
