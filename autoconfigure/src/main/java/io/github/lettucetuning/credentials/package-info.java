/**
 * Credentials that rotate: the provider the client authenticates with, followed so that
 * the user it issues can be shown and named, never its secret.
 */
@NullMarked
package io.github.lettucetuning.credentials;

import org.jspecify.annotations.NullMarked;
