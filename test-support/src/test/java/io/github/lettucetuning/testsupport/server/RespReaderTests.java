package io.github.lettucetuning.testsupport.server;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link RespReader}.
 */
class RespReaderTests {

	@Test
	void readsSimpleStringsIntegersAndBulkStrings() throws IOException {
		assertThat(read("+PONG\r\n")).isEqualTo("PONG");
		assertThat(read(":-42\r\n")).isEqualTo(-42L);
		assertThat(read("$12\r\nhello\r\nworld\r\n")).isEqualTo("hello\r\nworld");
		assertThat(read("$0\r\n\r\n")).isEqualTo("");
	}

	@Test
	void decodesBulkStringsAsUtf8() throws IOException {
		assertThat(read("$5\r\ncaf\u00e9\r\n")).isEqualTo("caf\u00e9");
	}

	@Test
	void readsNulls() throws IOException {
		assertThat(read("$-1\r\n")).isNull();
		assertThat(read("*-1\r\n")).isNull();
		assertThat(read("_\r\n")).isNull();
	}

	@Test
	void readsNestedArraysWithNullsAndErrors() throws IOException {
		Object reply = read("*4\r\n:1\r\n*2\r\n+a\r\n$1\r\nb\r\n$-1\r\n-ERR inner\r\n");
		assertThat(reply).isInstanceOf(List.class);
		List<?> list = (List<?>) reply;
		assertThat(list.subList(0, 3)).isEqualTo(Arrays.asList(1L, List.of("a", "b"), null));
		assertThat(list.get(3)).isInstanceOfSatisfying(RespErrorException.class,
				(error) -> assertThat(error).hasMessage("ERR inner"));
	}

	@Test
	void returnsErrorsAsValuesWithTheirCode() throws IOException {
		Object reply = read("-MOVED 3999 127.0.0.1:6381\r\n");
		assertThat(reply).isInstanceOf(RespErrorException.class);
		assertThat(((RespErrorException) reply).errorCode()).isEqualTo("MOVED");
	}

	@Test
	void readsResp3Types() throws IOException {
		assertThat(read("%1\r\n+key\r\n:7\r\n")).isEqualTo(Map.of("key", 7L));
		assertThat(read("#t\r\n")).isEqualTo(true);
		assertThat(read(",1.5\r\n")).isEqualTo(1.5);
		assertThat(read("=8\r\ntxt:some\r\n")).isEqualTo("some");
	}

	@Test
	void readsConsecutiveReplies() throws IOException {
		RespReader reader = reader("+OK\r\n:1\r\n");
		assertThat(reader.read()).isEqualTo("OK");
		assertThat(reader.read()).isEqualTo(1L);
	}

	@Test
	void truncatedReplyFails() {
		assertThatExceptionOfType(EOFException.class).isThrownBy(() -> read("$10\r\nabc"));
		assertThatExceptionOfType(EOFException.class).isThrownBy(() -> read("+OK"));
		assertThatExceptionOfType(EOFException.class).isThrownBy(() -> read(""));
	}

	@Test
	void unknownTypeFails() {
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> read("?what\r\n"))
			.withMessageContaining("Unexpected RESP type");
	}

	private static @Nullable Object read(String bytes) throws IOException {
		return reader(bytes).read();
	}

	private static RespReader reader(String bytes) {
		return new RespReader(new ByteArrayInputStream(bytes.getBytes(StandardCharsets.UTF_8)));
	}

}
