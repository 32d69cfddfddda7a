package com.example.consumer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * A user's application: stores strings in Redis through {@link StringRedisTemplate}.
 */
@SpringBootApplication
@RestController
public class ConsumerApplication {

	private final StringRedisTemplate redis;

	private final RedisConnectionFactory connectionFactory;

	public ConsumerApplication(StringRedisTemplate redis, RedisConnectionFactory connectionFactory) {
		this.redis = redis;
		this.connectionFactory = connectionFactory;
	}

	@PutMapping("/values/{key}")
	public void put(@PathVariable String key, @RequestBody String value) {
		this.redis.opsForValue().set(key, value);
	}

	@GetMapping("/values/{key}")
	public String get(@PathVariable String key) {
		return this.redis.opsForValue().get(key);
	}

	@GetMapping("/connection-factory")
	public String connectionFactory() {
		return this.connectionFactory.getClass().getName();
	}

	public static void main(String[] args) {
		SpringApplication.run(ConsumerApplication.class, args);
	}

}
