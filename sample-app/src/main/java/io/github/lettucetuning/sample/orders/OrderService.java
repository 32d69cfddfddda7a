package io.github.lettucetuning.sample.orders;

import java.util.List;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Places orders: stock, order log and revenue change together in one MULTI/EXEC
 * transaction, which runs on a dedicated connection.
 */
@Service
@RestController
public class OrderService {

	private final StringRedisTemplate redis;

	OrderService(StringRedisTemplate redis) {
		this.redis = redis;
	}

	@PostMapping("/orders/{product}")
	public Order place(@PathVariable String product, @RequestParam(defaultValue = "1") int quantity) {
		List<Object> results = this.redis.execute(new SessionCallback<>() {

			@Override
			@SuppressWarnings({ "unchecked", "rawtypes" })
			public List<Object> execute(RedisOperations operations) throws DataAccessException {
				operations.multi();
				operations.opsForValue().decrement("stock:" + product, quantity);
				operations.opsForList().rightPush("orders", product + "x" + quantity);
				operations.opsForValue().increment("sold:" + product, quantity);
				return operations.exec();
			}

		});
		return new Order(product, quantity, (Long) results.get(0), (Long) results.get(1));
	}

	/**
	 * A placed order.
	 *
	 * @param product the product
	 * @param quantity how many
	 * @param stockLeft the stock after the order
	 * @param orderNumber the position of the order in the order log
	 */
	public record Order(String product, int quantity, long stockLeft, long orderNumber) {

	}

}
