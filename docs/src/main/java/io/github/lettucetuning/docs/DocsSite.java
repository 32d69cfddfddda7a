package io.github.lettucetuning.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.commonmark.Extension;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.ext.heading.anchor.HeadingAnchorExtension;
import org.commonmark.node.Link;
import org.commonmark.node.Node;
import org.commonmark.parser.Parser;
import org.commonmark.renderer.html.AttributeProvider;
import org.commonmark.renderer.html.HtmlRenderer;

/**
 * Renders every Markdown page of the docs folder to HTML, links between pages rewritten
 * to point at the rendered pages, images copied along.
 */
public final class DocsSite {

	static final List<Extension> EXTENSIONS = List.of(TablesExtension.create(), HeadingAnchorExtension.create());

	private DocsSite() {
	}

	public static void main(String[] args) throws IOException {
		Path docs = Path.of(args[0]);
		Path site = Path.of(args[1]);
		for (Path page : pages(docs)) {
			Path target = site.resolve(docs.relativize(page).toString().replaceAll("\\.md$", ".html"));
			Files.createDirectories(target.getParent());
			Files.writeString(target, html(page), StandardCharsets.UTF_8);
		}
		for (Path image : images(docs)) {
			Path target = site.resolve(docs.relativize(image));
			Files.createDirectories(target.getParent());
			Files.copy(image, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
		}
	}

	static List<Path> pages(Path docs) throws IOException {
		return files(docs, ".md");
	}

	static List<Path> images(Path docs) throws IOException {
		return files(docs, ".png");
	}

	private static List<Path> files(Path docs, String suffix) throws IOException {
		try (Stream<Path> files = Files.walk(docs)) {
			return files.filter((file) -> file.toString().endsWith(suffix))
				.filter((file) -> !docs.relativize(file).startsWith("target"))
				.filter((file) -> !docs.relativize(file).startsWith("src"))
				.sorted()
				.toList();
		}
	}

	static Node parse(Path page) {
		try {
			return Parser.builder().extensions(EXTENSIONS).build().parse(Files.readString(page));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String html(Path page) {
		HtmlRenderer renderer = HtmlRenderer.builder()
			.extensions(EXTENSIONS)
			.attributeProviderFactory((context) -> markdownLinksToHtml())
			.build();
		String title = page.getFileName().toString().replaceAll("\\.md$", "");
		return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>lettuce-tuning: " + title
				+ "</title><style>body{font-family:sans-serif;max-width:60em;margin:2em auto;line-height:1.5}"
				+ "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em}"
				+ "code{background:#f4f4f4}</style></head><body>\n" + renderer.render(parse(page)) + "</body></html>\n";
	}

	private static AttributeProvider markdownLinksToHtml() {
		return (node, tagName, attributes) -> {
			if (node instanceof Link && attributes.containsKey("href")) {
				attributes.put("href", attributes.get("href").replaceAll("\\.md(#|$)", ".html$1"));
			}
		};
	}

}
