package io.github.lettucetuning.testsupport.server;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Reads RESP2 (and the simple RESP3) reply types from a stream. Strings are decoded as
 * UTF-8, integers become {@link Long}, arrays become {@link List}, maps become
 * {@link Map}, nulls become {@code null} and error replies become a
 * {@link RespErrorException} value (thrown by the caller only at the top level, so an
 * error nested in an array does not hide its siblings).
 */
final class RespReader {

	private final InputStream input;

	RespReader(InputStream input) {
		this.input = input;
	}

	@Nullable Object read() throws IOException {
		int type = this.input.read();
		if (type == -1) {
			throw new EOFException("Connection closed by the server");
		}
		return switch (type) {
			case '+' -> readLine();
			case '-' -> new RespErrorException(readLine());
			case ':' -> Long.parseLong(readLine());
			case '$', '=' -> readBulk(type);
			case '*', '~', '>' -> readArray();
			case '%' -> readMap();
			case '_' -> readNull();
			case '#' -> "t".equals(readLine());
			case ',' -> Double.parseDouble(readLine());
			case '(' -> new java.math.BigInteger(readLine());
			default -> throw new IOException("Unexpected RESP type byte '" + (char) type + "'");
		};
	}

	private @Nullable Object readNull() throws IOException {
		readLine();
		return null;
	}

	private @Nullable String readBulk(int type) throws IOException {
		int length = Integer.parseInt(readLine());
		if (length < 0) {
			return null;
		}
		byte[] bytes = this.input.readNBytes(length);
		if (bytes.length < length) {
			throw new EOFException("Connection closed in the middle of a bulk string");
		}
		expectCrLf();
		String value = new String(bytes, StandardCharsets.UTF_8);
		// Verbatim strings start with a three letter format and a colon, e.g. "txt:"
		return (type == '=' && value.length() >= 4) ? value.substring(4) : value;
	}

	private @Nullable List<@Nullable Object> readArray() throws IOException {
		int count = Integer.parseInt(readLine());
		if (count < 0) {
			return null;
		}
		List<@Nullable Object> elements = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			elements.add(read());
		}
		return elements;
	}

	private Map<@Nullable Object, @Nullable Object> readMap() throws IOException {
		int count = Integer.parseInt(readLine());
		Map<@Nullable Object, @Nullable Object> entries = new LinkedHashMap<>();
		for (int i = 0; i < count; i++) {
			entries.put(read(), read());
		}
		return entries;
	}

	private void expectCrLf() throws IOException {
		if (this.input.read() != '\r' || this.input.read() != '\n') {
			throw new IOException("Malformed RESP: expected CRLF");
		}
	}

	private String readLine() throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream(32);
		while (true) {
			int next = this.input.read();
			if (next == -1) {
				throw new EOFException("Connection closed in the middle of a reply");
			}
			if (next == '\r') {
				if (this.input.read() != '\n') {
					throw new IOException("Malformed RESP: CR without LF");
				}
				return line.toString(StandardCharsets.UTF_8);
			}
			line.write(next);
		}
	}

}
