package io.github.lettucetuning.benchmarks.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON-lines file the harness appends one record per iteration to. Its path comes
 * from the {@value #PROPERTY} system property, {@value #DEFAULT_PATH} (relative to the
 * working directory) without it.
 */
public final class SideFile {

	/**
	 * System property naming the side file.
	 */
	public static final String PROPERTY = "lettuce.bench.side-file";

	/**
	 * Path of the side file when the property is not set.
	 */
	public static final String DEFAULT_PATH = "benchmarks/results/side.jsonl";

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private final Path path;

	/**
	 * Create a handle on a side file.
	 * @param path the file, created with its directory on first append
	 */
	public SideFile(Path path) {
		this.path = path;
	}

	/**
	 * Return the side file named by the system property.
	 * @return the side file
	 */
	public static SideFile fromSystemProperty() {
		return new SideFile(Path.of(System.getProperty(PROPERTY, DEFAULT_PATH)));
	}

	public Path path() {
		return this.path;
	}

	/**
	 * Append one record as a line of JSON.
	 * @param record the record
	 */
	public synchronized void append(Map<String, Object> record) {
		String line = MAPPER.writeValueAsString(record) + "\n";
		try {
			Path parent = this.path.toAbsolutePath().getParent();
			if (parent != null) {
				Files.createDirectories(parent);
			}
			Files.writeString(this.path, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
					StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot append to " + this.path, ex);
		}
	}

}
