package io.github.lettucetuning.testsupport.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away certificate authority for TLS tests, made with the {@code openssl} command
 * line tool (on the {@code PATH}; {@code make prerequisites} installs it). It issues
 * certificates for {@code 127.0.0.1} and {@code localhost} that serve as server and as
 * client certificates alike, valid for two days. Keys are unencrypted PEM (PKCS#8), as
 * both {@code redis-server} and Spring Boot's PEM bundles read them.
 */
public final class CertificateAuthority {

	private static final long OPENSSL_TIMEOUT_SECONDS = 60;

	private final String name;

	private final Path directory;

	private final Issued self;

	private CertificateAuthority(String name, Path directory, Issued self) {
		this.name = name;
		this.directory = directory;
		this.self = self;
	}

	/**
	 * Create a self-signed CA.
	 * @param directory where its files and those of the certificates it issues go
	 * @param name its common name, also the prefix of its files
	 * @return the CA
	 */
	public static CertificateAuthority create(Path directory, String name) {
		Path certificate = directory.resolve(name + "-ca.crt");
		Path key = directory.resolve(name + "-ca.key");
		openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.toString(), "-out",
				certificate.toString(), "-days", "2", "-subj", "/CN=" + name, "-addext",
				"basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
		return new CertificateAuthority(name, directory, new Issued(certificate, key));
	}

	/**
	 * Return the CA's own certificate, the one a peer trusts.
	 * @return the PEM file
	 */
	public Path certificate() {
		return this.self.certificate();
	}

	/**
	 * Issue a certificate for {@code 127.0.0.1} and {@code localhost}, usable by a server
	 * and by a client.
	 * @param commonName its common name, also the prefix of its files
	 * @return the certificate and its key
	 */
	public Issued issue(String commonName) {
		return issue(commonName, 2);
	}

	/**
	 * Issue a certificate for {@code 127.0.0.1} and {@code localhost} that expired a day
	 * ago, for a peer that must refuse it.
	 * @param commonName its common name, also the prefix of its files
	 * @return the certificate and its key
	 */
	public Issued issueExpired(String commonName) {
		// openssl counts the days from now: -1 ends the validity before it began.
		return issue(commonName, -1);
	}

	private Issued issue(String commonName, int days) {
		Path key = this.directory.resolve(commonName + ".key");
		Path request = this.directory.resolve(commonName + ".csr");
		Path certificate = this.directory.resolve(commonName + ".crt");
		Path extensions = this.directory.resolve(commonName + ".ext");
		write(extensions, "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
				+ "extendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n");
		openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", key.toString(), "-out", request.toString(), "-subj",
				"/CN=" + commonName);
		openssl("x509", "-req", "-in", request.toString(), "-CA", this.self.certificate().toString(), "-CAkey",
				this.self.key().toString(), "-CAcreateserial", "-out", certificate.toString(), "-days",
				String.valueOf(days), "-extfile", extensions.toString());
		return new Issued(certificate, key);
	}

	/**
	 * Write the certificates of several CAs into one PEM file, for a peer that trusts
	 * them all.
	 * @param file the file to write
	 * @param authorities the CAs
	 * @return the file
	 */
	public static Path bundle(Path file, CertificateAuthority... authorities) {
		StringBuilder pem = new StringBuilder();
		for (CertificateAuthority authority : authorities) {
			pem.append(read(authority.certificate()));
		}
		write(file, pem.toString());
		return file;
	}

	@Override
	public String toString() {
		return "CertificateAuthority[" + this.name + "]";
	}

	private static void openssl(String... arguments) {
		List<String> command = new ArrayList<>(List.of("openssl"));
		command.addAll(List.of(arguments));
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(OPENSSL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException("openssl did not finish: " + command);
			}
			if (process.exitValue() != 0) {
				throw new IllegalStateException(
						"openssl failed (" + process.exitValue() + "): " + command + "\n" + output);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot run openssl (is it on the PATH?): " + command, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + command, ex);
		}
	}

	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void write(Path file, String content) {
		try {
			Files.writeString(file, content);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * A certificate and its private key.
	 *
	 * @param certificate the certificate (PEM)
	 * @param key the unencrypted private key (PEM)
	 */
	public record Issued(Path certificate, Path key) {

	}

}
