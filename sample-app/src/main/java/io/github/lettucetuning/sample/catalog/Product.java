package io.github.lettucetuning.sample.catalog;

import java.io.Serializable;
import java.math.BigDecimal;

/**
 * A product of the catalog.
 *
 * @param id the product id
 * @param name the product name
 * @param price the unit price
 */
public record Product(long id, String name, BigDecimal price) implements Serializable {

}
