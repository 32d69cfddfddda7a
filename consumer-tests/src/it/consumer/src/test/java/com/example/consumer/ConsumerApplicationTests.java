package com.example.consumer;

import java.util.Map;

import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application on the JVM, as {@code java -jar} runs it, against a real redis-server.
 */
@RedisStandaloneTest
@EnabledIfSystemProperty(named = "consumer.supported", matches = "true")
@Timeout(120)
class ConsumerApplicationTests {

	private final RedisStandalone redis;

	ConsumerApplicationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@Test
	void setGetAndHealthWorkThroughTheStarter() {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ConsumerApplication.class)
			.properties("server.port=0", "spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port())
			.run()) {
			assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(LettuceTuningConnectionFactory.class);
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("consumer:direct", "v1");
			assertThat(template.opsForValue().get("consumer:direct")).isEqualTo("v1");
			assertThat(this.redis.node().commandAsString("GET", "consumer:direct")).isEqualTo("v1");

			RestClient http = RestClient
				.create("http://localhost:" + context.getEnvironment().getProperty("local.server.port"));
			http.put().uri("/values/consumer:http").contentType(MediaType.TEXT_PLAIN).body("v2").retrieve().toBodilessEntity();
			assertThat(http.get().uri("/values/consumer:http").retrieve().body(String.class)).isEqualTo("v2");
			Map<String, Object> health = http.get().uri("/actuator/health").retrieve().body(new ParameterizedTypeReference<>() {
			});
			assertThat(health).containsEntry("status", "UP");
			// The redis component is the starter's bounded check in place of Boot's: it reports the mode
			assertThat(health).extractingByKey("components").asInstanceOf(InstanceOfAssertFactories.MAP)
				.doesNotContainKey("lettuce")
				.extractingByKey("redis")
				.asString()
				.contains("mode=shared")
				.contains("status=UP");
		}
	}

}
