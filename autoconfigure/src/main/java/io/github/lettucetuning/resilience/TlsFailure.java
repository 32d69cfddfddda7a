package io.github.lettucetuning.resilience;

import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.util.List;

import javax.net.ssl.SSLException;

import org.jspecify.annotations.Nullable;

/**
 * Tells a connection attempt that failed in its TLS handshake from one that failed
 * otherwise, and words it for the caller: which side refused and why, in the words of the
 * TLS stack, and the SSL bundle the client's material comes from. A server that refuses
 * the handshake answers: it is not unreachable, and restarting it changes nothing.
 * <p>
 * Which side refused shows in the failure: a client that does not accept the server's
 * certificate fails with the certificate exception of its trust manager; a server that
 * does not accept the client's certificate sends an alert ({@code unknown_ca},
 * {@code certificate_required}, ...), which with TLS 1.3 arrives after the client's side
 * of the handshake is done, as the failure of the first command Lettuce's handshake
 * sends. The TLS stack's words name certificates and alerts, never a key or a password.
 */
final class TlsFailure {

	// Alerts a server sends about the certificate the client presented (RFC 8446 6.2).
	private static final List<String> CERTIFICATE_ALERTS = List.of("bad_certificate", "unsupported_certificate",
			"certificate_revoked", "certificate_expired", "certificate_unknown", "unknown_ca", "access_denied",
			"certificate_required");

	private static final String ALERT = "Received fatal alert: ";

	private static final int MAX_REASON_LENGTH = 200;

	private TlsFailure() {
	}

	/**
	 * Describe a failure that is a failed TLS handshake.
	 * @param failure the failure of a connection attempt, or of a command of its
	 * handshake
	 * @param bundle the SSL bundle the client's key and trust material come from, if
	 * known
	 * @return the description, naming the bundle and the reason, or {@code null} if the
	 * failure holds no TLS failure
	 */
	static @Nullable String describe(Throwable failure, @Nullable String bundle) {
		SSLException ssl = find(failure, SSLException.class);
		if (ssl == null) {
			return null;
		}
		String material = (bundle != null) ? "SSL bundle '" + bundle + "'" : "the client's TLS settings";
		String reason = reason(ssl);
		String message = String.valueOf(ssl.getMessage());
		if (message.startsWith(ALERT)) {
			String alert = message.substring(ALERT.length()).trim();
			return CERTIFICATE_ALERTS.contains(alert)
					? "the server refuses the client certificate of " + material + " (" + reason + ")"
					: "the server refuses the handshake with " + material + " (" + reason + ")";
		}
		if (find(failure, CertificateExpiredException.class) != null) {
			return "the server's certificate has expired, and " + material + " does not accept it (" + reason + ")";
		}
		if (find(failure, CertificateException.class) != null || find(failure, CertPathBuilderException.class) != null
				|| find(failure, CertPathValidatorException.class) != null) {
			return "the server's certificate is not trusted by " + material + " (" + reason + ")";
		}
		return "the handshake with " + material + " fails (" + reason + ")";
	}

	private static <T extends Throwable> @Nullable T find(Throwable failure, Class<T> type) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (type.isInstance(cause)) {
				return type.cast(cause);
			}
			if (cause.getCause() == cause) {
				return null;
			}
		}
		return null;
	}

	// The innermost message says it best: "unable to find valid certification path to
	// requested target" rather than the layers of exception names around it.
	private static String reason(SSLException ssl) {
		String reason = ssl.getClass().getSimpleName();
		for (Throwable cause = ssl; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause.getMessage() != null && !cause.getMessage().isBlank()) {
				reason = cause.getMessage();
			}
		}
		String line = reason.lines().findFirst().orElse(reason);
		return (line.length() > MAX_REASON_LENGTH) ? line.substring(0, MAX_REASON_LENGTH) + "..." : line;
	}

}
