package io.github.lettucetuning.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.commonmark.ext.heading.anchor.IdGenerator;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.Heading;
import org.commonmark.node.Image;
import org.commonmark.node.Link;
import org.commonmark.node.Node;
import org.commonmark.node.Text;

/**
 * Finds relative links and images in Markdown pages that point at a missing file or a
 * missing heading.
 */
public final class LinkChecker {

	private LinkChecker() {
	}

	/**
	 * Check the links of the given pages.
	 * @param pages the Markdown pages
	 * @return one line per broken link, empty when all resolve
	 */
	public static List<String> brokenLinks(List<Path> pages) {
		List<String> broken = new ArrayList<>();
		for (Path page : pages) {
			for (String destination : destinations(DocsSite.parse(page))) {
				if (!resolves(page, destination)) {
					broken.add(page + ": " + destination);
				}
			}
		}
		return broken;
	}

	private static boolean resolves(Path page, String destination) {
		if (destination.matches("^[a-z]+:.*") || destination.startsWith("//")) {
			return true;
		}
		int hash = destination.indexOf('#');
		String file = (hash >= 0) ? destination.substring(0, hash) : destination;
		Path target = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
		if (!Files.exists(target)) {
			return false;
		}
		if (hash < 0 || !target.toString().endsWith(".md")) {
			return true;
		}
		return anchors(DocsSite.parse(target)).contains(destination.substring(hash + 1));
	}

	private static List<String> destinations(Node document) {
		List<String> destinations = new ArrayList<>();
		document.accept(new AbstractVisitor() {

			@Override
			public void visit(Link link) {
				destinations.add(link.getDestination());
				visitChildren(link);
			}

			@Override
			public void visit(Image image) {
				destinations.add(image.getDestination());
			}

		});
		return destinations;
	}

	static Set<String> anchors(Node document) {
		IdGenerator ids = IdGenerator.builder().build();
		Set<String> anchors = new HashSet<>();
		document.accept(new AbstractVisitor() {

			@Override
			public void visit(Heading heading) {
				StringBuilder text = new StringBuilder();
				heading.accept(new AbstractVisitor() {

					@Override
					public void visit(Text node) {
						text.append(node.getLiteral());
					}

					@Override
					public void visit(org.commonmark.node.Code node) {
						text.append(node.getLiteral());
					}

				});
				anchors.add(ids.generateId(text.toString()));
			}

		});
		return anchors;
	}

}
