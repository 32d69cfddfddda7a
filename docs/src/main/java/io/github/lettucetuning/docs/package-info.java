/**
 * Builds and checks the reference documentation.
 */
package io.github.lettucetuning.docs;
