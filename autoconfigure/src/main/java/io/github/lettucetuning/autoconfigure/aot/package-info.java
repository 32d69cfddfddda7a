/**
 * Runtime hints for Spring AOT and native images.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure.aot;

import org.jspecify.annotations.NullMarked;
