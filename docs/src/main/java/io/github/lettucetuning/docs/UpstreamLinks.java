package io.github.lettucetuning.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.commonmark.ext.heading.anchor.IdGenerator;

/**
 * Checks that {@code docs/upstream.md} and the code it describes point at each other:
 * every workaround is linked from the code that does it ({@code docs/upstream.md#anchor}
 * in a comment), its entry names that code, and every such link in the code resolves. An
 * entry whose row in the page's table says "(not worked around)" has no code.
 */
public final class UpstreamLinks {

	private static final Pattern CODE_LINK = Pattern.compile("docs/upstream\\.md#([a-z0-9-]+)");

	private static final Pattern NOT_WORKED_AROUND = Pattern.compile("\\]\\(#([a-z0-9-]+)\\) \\(not worked around\\)");

	private static final Pattern NAMED = Pattern.compile("`([^`]+)`");

	private UpstreamLinks() {
	}

	/**
	 * Find what does not point back.
	 * @param page the upstream page
	 * @param code the root of the sources whose comments link to it
	 * @return one line per problem, empty when every link goes both ways
	 * @throws IOException if a file cannot be read
	 */
	public static List<String> problems(Path page, Path code) throws IOException {
		String text = Files.readString(page);
		Map<String, String> entries = entries(text);
		Set<String> notWorkedAround = new TreeSet<>();
		Matcher row = NOT_WORKED_AROUND.matcher(text);
		while (row.find()) {
			notWorkedAround.add(row.group(1));
		}
		Map<String, Set<String>> linkedFrom = codeLinks(code);
		List<String> problems = new ArrayList<>();
		linkedFrom.forEach((anchor, classes) -> {
			if (!entries.containsKey(anchor)) {
				problems.add(classes + " link to docs/upstream.md#" + anchor + ", which has no entry");
			}
		});
		entries.forEach((anchor, section) -> {
			Set<String> classes = linkedFrom.get(anchor);
			if (notWorkedAround.contains(anchor)) {
				return;
			}
			if (classes == null) {
				problems.add("#" + anchor + ": no code comment links to it");
			}
			else if (named(section).stream().noneMatch(classes::contains)) {
				problems.add("#" + anchor + ": names none of the classes that link to it, " + classes);
			}
		});
		return problems;
	}

	// Each "###" entry's text by its heading's anchor
	private static Map<String, String> entries(String text) {
		Map<String, String> entries = new LinkedHashMap<>();
		String[] sections = text.split("\n### ");
		IdGenerator ids = IdGenerator.builder().build();
		for (int i = 1; i < sections.length; i++) {
			String heading = sections[i].substring(0, sections[i].indexOf('\n')).replace("`", "");
			entries.put(ids.generateId(heading), sections[i]);
		}
		return entries;
	}

	// The simple names of what an entry names in code spans: `resilience/OutageGuard`,
	// `SharedConnectionSet.selectCountingCommands()`
	private static Set<String> named(String section) {
		Set<String> names = new TreeSet<>();
		Matcher matcher = NAMED.matcher(section);
		while (matcher.find()) {
			String name = matcher.group(1);
			name = name.substring(name.lastIndexOf('/') + 1);
			name = name.split("[.(#]", 2)[0];
			names.add(name);
		}
		return names;
	}

	// The classes whose sources link to each anchor
	private static Map<String, Set<String>> codeLinks(Path code) throws IOException {
		Map<String, Set<String>> links = new TreeMap<>();
		try (Stream<Path> files = Files.walk(code)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".java")).toList()) {
				Matcher matcher = CODE_LINK.matcher(Files.readString(file));
				while (matcher.find()) {
					links.computeIfAbsent(matcher.group(1), (anchor) -> new TreeSet<>())
						.add(file.getFileName().toString().replace(".java", ""));
				}
			}
		}
		return links;
	}

}
