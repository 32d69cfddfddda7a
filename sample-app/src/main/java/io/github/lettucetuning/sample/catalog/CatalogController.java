package io.github.lettucetuning.sample.catalog;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Serves the catalog.
 */
@RestController
class CatalogController {

	private final CatalogService catalog;

	CatalogController(CatalogService catalog) {
		this.catalog = catalog;
	}

	@GetMapping("/catalog/{id}")
	Product product(@PathVariable long id) {
		return this.catalog.product(id);
	}

}
