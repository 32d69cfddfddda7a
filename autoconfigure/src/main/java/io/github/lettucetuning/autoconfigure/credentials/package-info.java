/**
 * Auto-configuration of credentials that rotate: an application's credentials provider on
 * every connection, and re-authentication of live connections when it issues new
 * credentials.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure.credentials;

import org.jspecify.annotations.NullMarked;
