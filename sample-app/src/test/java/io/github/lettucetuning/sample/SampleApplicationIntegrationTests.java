package io.github.lettucetuning.sample;

import java.util.List;
import java.util.Map;

import io.github.lettucetuning.sample.catalog.CatalogService;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample shop against a real redis-server: every endpoint does its work in Redis, and
 * the health endpoint reports it.
 */
@RedisStandaloneTest
@Timeout(120)
class SampleApplicationIntegrationTests {

	private final RedisStandalone redis;

	private ConfigurableApplicationContext context;

	private RestClient http;

	SampleApplicationIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void start() {
		this.redis.node().command("FLUSHALL");
		this.context = new SpringApplicationBuilder(SampleApplication.class)
			.properties("server.port=0", "spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port())
			.run();
		this.http = RestClient
			.create("http://localhost:" + this.context.getEnvironment().getProperty("local.server.port"));
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	@Test
	void catalogIsCachedInRedis() {
		Map<String, Object> first = get("/catalog/7");
		Map<String, Object> second = get("/catalog/7");
		assertThat(second).isEqualTo(first).containsEntry("name", "Product 7");
		assertThat(this.context.getBean(CatalogService.class).databaseLookups()).isOne();
		assertThat(this.redis.node().commandAsString("EXISTS", "catalog::7")).isEqualTo("1");
	}

	@Test
	void counterLeaderboardOrdersAndJobsWorkInRedis() {
		post("/visits/home", null, Long.class);
		assertThat(post("/visits/home", null, Long.class)).isEqualTo(2);
		post("/leaderboard/alice?points=5", null, Double.class);
		post("/leaderboard/bob?points=3", null, Double.class);
		List<Map<String, Object>> top = this.http.get()
			.uri("/leaderboard")
			.retrieve()
			.body(new ParameterizedTypeReference<>() {
			});
		assertThat(top).extracting((entry) -> entry.get("player")).containsExactly("alice", "bob");
		this.redis.node().command("SET", "stock:sku-1", "10");
		Map<String, Object> order = this.http.post()
			.uri("/orders/sku-1?quantity=2")
			.retrieve()
			.body(new ParameterizedTypeReference<>() {
			});
		assertThat(order).containsEntry("stockLeft", 8).containsEntry("orderNumber", 1);
		assertThat(this.redis.node().commandAsString("GET", "sold:sku-1")).isEqualTo("2");
		post("/jobs", "resize-image", Long.class);
		assertThat(post("/jobs/take?timeoutMillis=1000", null, String.class)).isEqualTo("resize-image");
	}

	@Test
	void healthReportsRedisUp() {
		Map<String, Object> health = get("/actuator/health");
		assertThat(health).containsEntry("status", "UP");
		assertThat(health.get("components")).asString().contains("redis");
	}

	@Test
	void redisDecidesReadinessButNotLiveness() {
		assertThat(get("/actuator/health/readiness")).containsEntry("status", "UP")
			.extractingByKey("components")
			.asString()
			.contains("redis");
		assertThat(get("/actuator/health/liveness")).containsEntry("status", "UP")
			.extractingByKey("components")
			.asString()
			.doesNotContain("redis");
	}

	private Map<String, Object> get(String path) {
		return this.http.get().uri(path).retrieve().body(new ParameterizedTypeReference<>() {
		});
	}

	private <T> T post(String path, Object body, Class<T> type) {
		RestClient.RequestBodySpec request = this.http.post().uri(path);
		if (body != null) {
			request.body(body);
		}
		return request.retrieve().body(type);
	}

}
