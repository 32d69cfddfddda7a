package io.github.lettucetuning.resilience;

import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;

import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.netty.handler.codec.DecoderException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link TlsFailure}.
 */
class TlsFailureTests {

	@Test
	void alertAboutTheClientCertificateSaysTheServerRefusesIt() {
		assertThat(TlsFailure
			.describe(new DecoderException(new SSLHandshakeException("Received fatal alert: unknown_ca")), "redis"))
			.isEqualTo("the server refuses the client certificate of SSL bundle 'redis' "
					+ "(Received fatal alert: unknown_ca)");
		assertThat(TlsFailure.describe(new SSLHandshakeException("Received fatal alert: certificate_required"), null))
			.isEqualTo("the server refuses the client certificate of the client's TLS settings "
					+ "(Received fatal alert: certificate_required)");
	}

	@Test
	void otherAlertSaysTheServerRefusesTheHandshake() {
		assertThat(TlsFailure.describe(new SSLHandshakeException("Received fatal alert: protocol_version"), "redis"))
			.isEqualTo("the server refuses the handshake with SSL bundle 'redis' "
					+ "(Received fatal alert: protocol_version)");
	}

	@Test
	void untrustedServerCertificateGivesTheInnermostReason() {
		SSLHandshakeException failure = new SSLHandshakeException("PKIX path building failed: ...");
		failure.initCause(new CertificateException("PKIX path building failed: ...",
				new CertPathValidatorException("unable to find valid certification path to requested target")));
		assertThat(TlsFailure.describe(new RedisConnectionException("Unable to connect", failure), "redis"))
			.isEqualTo("the server's certificate is not trusted by SSL bundle 'redis' "
					+ "(unable to find valid certification path to requested target)");
	}

	@Test
	void expiredServerCertificateSaysSo() {
		SSLHandshakeException failure = new SSLHandshakeException("PKIX path validation failed");
		failure.initCause(new CertPathValidatorException("validity check failed",
				new CertificateExpiredException("NotAfter: Thu Nov 26 10:00:00 UTC 2026")));
		assertThat(TlsFailure.describe(failure, "redis"))
			.isEqualTo("the server's certificate has expired, and SSL bundle 'redis' does not accept it "
					+ "(NotAfter: Thu Nov 26 10:00:00 UTC 2026)");
	}

	@Test
	void otherTlsFailureIsStillATlsFailure() {
		assertThat(TlsFailure
			.describe(new SSLHandshakeException("Connection closed while SSL/TLS handshake was in progress"), "redis"))
			.isEqualTo("the handshake with SSL bundle 'redis' fails "
					+ "(Connection closed while SSL/TLS handshake was in progress)");
	}

	@Test
	void longReasonIsCut() {
		String description = TlsFailure.describe(new SSLException("x".repeat(500)), "redis");
		assertThat(description).hasSizeLessThan(300).endsWith("...)");
	}

	@Test
	void failureWithoutTlsIsNoTlsFailure() {
		assertThat(TlsFailure.describe(new RedisCommandExecutionException("WRONGPASS invalid password"), "redis"))
			.isNull();
		assertThat(TlsFailure.describe(new RedisConnectionException("Connection closed prematurely"), "redis"))
			.isNull();
	}

}
