package io.github.lettucetuning.credentials;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport;
import io.github.lettucetuning.autoconfigure.diagnostics.InvalidTuningPropertyException;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.state.ClientState;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RedisServerConfig;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.config.BeanDefinitionCustomizer;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Which credentials bean Spring Boot's connection takes, against real servers: Redis A
 * (the application's primary, a password and an ACL user), Redis B (the application's
 * second Redis, reached by its own client with its own credentials bean) and an open
 * Redis without a password. Each application runs on stock Spring Boot and on the
 * starter: where stock works, the starter works the same way, and the starter takes a
 * bean only when the application says it is for Spring Boot's connection.
 */
@RedisStandaloneTest(password = CredentialsBeanChoiceIntegrationTests.A_PASSWORD,
		aclUsers = "app-a:" + CredentialsBeanChoiceIntegrationTests.A_USER_PASSWORD)
@ExtendWith(OutputCaptureExtension.class)
@Timeout(120)
class CredentialsBeanChoiceIntegrationTests {

	static final String A_PASSWORD = "A-default-secret";

	static final String A_USER_PASSWORD = "A-app-secret";

	private static final String B_USER_PASSWORD = "B-app-secret";

	private static final String CLIENT_NAME = "creds-choice";

	private static final BeanDefinitionCustomizer PRIMARY = (definition) -> definition.setPrimary(true);

	private static RedisStandalone second;

	private static RedisStandalone open;

	private final RedisStandalone redis;

	CredentialsBeanChoiceIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeAll
	static void startSecondAndOpenRedis() {
		second = RedisStandalone.start(RedisServerConfig.defaults()
			.withName("second")
			.withPassword("B-default-secret")
			.withAclUser("app-b", B_USER_PASSWORD));
		open = RedisStandalone.start(RedisServerConfig.defaults().withName("open"));
	}

	@AfterAll
	static void stopSecondAndOpenRedis() {
		if (second != null) {
			second.close();
		}
		if (open != null) {
			open.close();
		}
	}

	// (a) One bean, for the second Redis; Boot's connection has Redis A's password.
	@Test
	void beanForAnotherRedisLeavesBootsPasswordAloneAsOnStock() {
		UnaryOperator<ApplicationContextRunner> app = (runner) -> runner
			.withPropertyValues("spring.data.redis.port=" + this.redis.port(),
					"spring.data.redis.password=" + A_PASSWORD)
			.withBean("secondRedisCredentials", RedisCredentialsProvider.class,
					() -> provider("app-b", B_USER_PASSWORD));
		for (ApplicationContextRunner runner : List.of(stock(), starter())) {
			run(app.apply(runner), this.redis.node(), (context) -> {
				assertThat(setAndGet(context, "a")).isEqualTo("a");
				assertThat(usersOf(this.redis.node())).containsOnly("default");
				assertThat(secondClientSetAndGet(context.getBean(RedisCredentialsProvider.class))).isEqualTo("b");
			});
		}
		run(app.apply(starter()), this.redis.node(),
				(context) -> assertThat(shown(context).choice()).isEqualTo("none taken: bean 'secondRedisCredentials' "
						+ "is not marked @Primary, so it may be meant for another Redis"));
	}

	// (a) The same bean while Boot's connection goes to a Redis without a password.
	@Test
	void beanForAnotherRedisLeavesAnOpenRedisOpenAsOnStock() {
		UnaryOperator<ApplicationContextRunner> app = (runner) -> runner
			.withPropertyValues("spring.data.redis.port=" + open.port())
			.withBean("secondRedisCredentials", RedisCredentialsProvider.class,
					() -> provider("app-b", B_USER_PASSWORD));
		for (ApplicationContextRunner runner : List.of(stock(), starter())) {
			run(app.apply(runner), open.node(), (context) -> {
				assertThat(setAndGet(context, "open")).isEqualTo("open");
				assertThat(usersOf(open.node())).containsOnly("default");
			});
		}
	}

	// (b) Two beans, no @Primary: startup succeeds and Boot's password is used.
	@Test
	void twoBeansWithoutPrimaryStartAndUseBootsPasswordAsOnStock(CapturedOutput output) {
		UnaryOperator<ApplicationContextRunner> app = (runner) -> runner
			.withPropertyValues("spring.data.redis.port=" + this.redis.port(),
					"spring.data.redis.password=" + A_PASSWORD)
			.withBean("secondRedisCredentials", RedisCredentialsProvider.class,
					() -> provider("app-b", B_USER_PASSWORD))
			.withBean("reportingCredentials", RedisCredentialsProvider.class, () -> provider("app-a", A_USER_PASSWORD));
		for (ApplicationContextRunner runner : List.of(stock(), starter())) {
			run(app.apply(runner), this.redis.node(), (context) -> {
				assertThat(context).hasNotFailed();
				assertThat(setAndGet(context, "two")).isEqualTo("two");
				assertThat(usersOf(this.redis.node())).containsOnly("default");
			});
		}
		run(app.apply(starter()), this.redis.node(), (context) -> {
			assertThat(shown(context).choice()).isEqualTo(
					"none taken: of beans [secondRedisCredentials, reportingCredentials], none is marked @Primary");
			assertThat(shown(context).user()).isEqualTo("default");
		});
		assertThat(output)
			.contains("lettuce-tuning found credentials beans [secondRedisCredentials, "
					+ "reportingCredentials] and wired none into Spring Boot's Redis connection")
			.contains("set lettuce.tuning.credentials.provider=<bean name>");
	}

	// (c) Two beans, the @Primary one for Boot's connection, no
	// spring.data.redis.password.
	// Stock Boot ignores both and is refused; the starter takes the primary and follows
	// its
	// rotation.
	@Test
	void primaryBeanForBootsConnectionIsTakenAndReauthenticates() {
		RedisNode node = this.redis.node();
		node.command("ACL", "SETUSER", "app-a2", "reset", "on", ">A-app-secret-2", "~*", "&*", "+@all");
		RotatingCredentials credentials = new RotatingCredentials("app-a", A_USER_PASSWORD);
		UnaryOperator<ApplicationContextRunner> app = (runner) -> runner
			.withPropertyValues("spring.data.redis.port=" + this.redis.port())
			.withBean("secondRedisCredentials", RedisCredentialsProvider.class,
					() -> provider("app-b", B_USER_PASSWORD))
			.withBean("appCredentials", RedisCredentialsProvider.class, () -> credentials, PRIMARY);
		try {
			run(app.apply(stock()), node, (context) -> assertRefused(context, "NOAUTH"));
			run(app.apply(starter()), node, (context) -> {
				assertThat(setAndGet(context, "primary")).isEqualTo("primary");
				assertThat(usersOf(node)).containsOnly("app-a");
				credentials.rotate("app-a2", "A-app-secret-2");
				await(Duration.ofSeconds(10), () -> "every connection authenticated as app-a2: " + usersOf(node),
						() -> List.of("app-a2").equals(usersOf(node).stream().distinct().toList()));
				assertThat(setAndGet(context, "rotated")).isEqualTo("rotated");
				ClientState.Credentials shown = shown(context);
				assertThat(shown.choice()).isEqualTo("bean 'appCredentials' is the @Primary credentials bean, "
						+ "and spring.data.redis.username and password are unset");
				assertThat(shown.user()).isEqualTo("app-a2");
				assertThat(shown.reauthenticate()).isEqualTo("ON_NEW_CREDENTIALS");
			});
		}
		finally {
			node.command("ACL", "DELUSER", "app-a2");
		}
	}

	// (d) The property names the bean for Boot's connection, among two without @Primary.
	@Test
	void propertyNamingABeanTakesIt() {
		UnaryOperator<ApplicationContextRunner> app = (runner) -> runner
			.withPropertyValues("spring.data.redis.port=" + this.redis.port(),
					"lettuce.tuning.credentials.provider=appCredentials")
			.withBean("secondRedisCredentials", RedisCredentialsProvider.class,
					() -> provider("app-b", B_USER_PASSWORD))
			.withBean("appCredentials", RedisCredentialsProvider.class, () -> provider("app-a", A_USER_PASSWORD));
		run(app.apply(stock()), this.redis.node(), (context) -> assertRefused(context, "NOAUTH"));
		run(app.apply(starter()), this.redis.node(), (context) -> {
			assertThat(setAndGet(context, "named")).isEqualTo("named");
			assertThat(usersOf(this.redis.node())).containsOnly("app-a");
			assertThat(shown(context).choice())
				.isEqualTo("bean 'appCredentials' named by lettuce.tuning.credentials.provider");
		});
	}

	// (e) A @Primary bean meant for the second Redis while Boot's connection goes to an
	// open Redis: 'auto' would take it (nothing says it is not Boot's), 'none' keeps the
	// application as it is on stock.
	@Test
	void noneLeavesEveryBeanAloneAsOnStock() {
		UnaryOperator<ApplicationContextRunner> app = (runner) -> runner
			.withPropertyValues("spring.data.redis.port=" + open.port())
			.withBean("secondRedisCredentials", RedisCredentialsProvider.class,
					() -> provider("app-b", B_USER_PASSWORD), PRIMARY);
		for (ApplicationContextRunner runner : List.of(stock(),
				starter().withPropertyValues("lettuce.tuning.credentials.provider=none"))) {
			run(app.apply(runner), open.node(), (context) -> {
				assertThat(setAndGet(context, "none")).isEqualTo("none");
				assertThat(usersOf(open.node())).containsOnly("default");
			});
		}
		run(app.apply(starter().withPropertyValues("lettuce.tuning.credentials.provider=none")), open.node(),
				(context) -> assertThat(shown(context).choice()).isEqualTo("lettuce.tuning.credentials.provider=none"));
		// Without it, the @Primary bean is taken for Boot's connection.
		run(app.apply(starter()), open.node(), (context) -> assertRefused(context, "WRONGPASS"));
	}

	// (f) A name that is no credentials bean fails startup, and the failure analysis says
	// which property, which value and what to set instead. Stock Boot knows no such
	// property and starts.
	@Test
	void badBeanNameFailsStartupNamingThePropertyTheValueAndTheFix(CapturedOutput output) {
		String[] arguments = { "--spring.main.banner-mode=off", "--spring.data.redis.host=127.0.0.1",
				"--spring.data.redis.port=" + this.redis.port(), "--spring.data.redis.password=" + A_PASSWORD,
				"--lettuce.tuning.credentials.provider=secondRedisCredential" };
		SpringApplication starter = new SpringApplication(StarterApplication.class);
		starter.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> starter.run(arguments))
			.havingRootCause()
			.isInstanceOf(InvalidTuningPropertyException.class);
		assertThat(output)
			.contains("The property 'lettuce.tuning.credentials.provider' has the invalid value "
					+ "'secondRedisCredential': no bean has that name.")
			.contains("Set lettuce.tuning.credentials.provider to the name of a RedisCredentialsProvider or "
					+ "RedisCredentialsProviderFactory bean (this application declares [secondRedisCredentials])");
		SpringApplication stock = new SpringApplication(StockApplication.class);
		stock.setWebApplicationType(WebApplicationType.NONE);
		try (var context = stock.run(arguments)) {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("credentials-choice", "stock");
			assertThat(template.opsForValue().get("credentials-choice")).isEqualTo("stock");
		}
	}

	private ApplicationContextRunner stock() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.client-name=" + CLIENT_NAME,
					"spring.data.redis.timeout=5s");
	}

	private ApplicationContextRunner starter() {
		return ObservabilityIntegrationSupport.contextRunner(CLIENT_NAME)
			.withPropertyValues("spring.data.redis.client-name=" + CLIENT_NAME, "spring.data.redis.timeout=5s");
	}

	// Runs the application, then waits until the server has seen its connections close,
	// so
	// that the next application's are the only ones under the client name.
	private static void run(ApplicationContextRunner runner, RedisNode node,
			ContextConsumer<AssertableApplicationContext> consumer) {
		runner.run(consumer);
		await(Duration.ofSeconds(10), () -> "connections closed: " + usersOf(node), () -> usersOf(node).isEmpty());
	}

	private static String setAndGet(AssertableApplicationContext context, String value) {
		StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
		template.opsForValue().set("credentials-choice", value);
		return template.opsForValue().get("credentials-choice");
	}

	// Every attempt is refused; one of a few says why. Lettuce 7.5 sometimes fails a
	// connect refused during its handshake with "RedisHandshakeHandler not registered"
	// instead of the server's reply (seen once on stock Boot in a full run), so a second
	// attempt reads the server's reason.
	private static void assertRefused(AssertableApplicationContext context, String error) {
		String messages = "";
		for (int attempt = 0; attempt < 3 && !messages.contains(error); attempt++) {
			Throwable refusal = catchThrowable(() -> setAndGet(context, "refused"));
			assertThat(refusal).isInstanceOf(RuntimeException.class);
			messages = messages(refusal);
		}
		assertThat(messages).contains(error);
	}

	private static String messages(Throwable failure) {
		StringBuilder messages = new StringBuilder();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			messages.append(cause.getMessage()).append(" <- ");
		}
		return messages.toString();
	}

	private static ClientState.Credentials shown(AssertableApplicationContext context) {
		ClientState.Credentials shown = context.getBean(LettuceEndpoint.class).lettuce().state().credentials();
		assertThat(shown).isNotNull();
		return shown;
	}

	// The user of each connection the application under test holds, as the server sees
	// it.
	private static List<String> usersOf(RedisNode node) {
		return node.clientList()
			.stream()
			.filter((client) -> client.name().equals(CLIENT_NAME))
			.map(ClientInfo::fields)
			.map((fields) -> Objects.requireNonNull(fields.get("user")))
			.toList();
	}

	// The application's own client for its second Redis, with the bean meant for it.
	private static String secondClientSetAndGet(RedisCredentialsProvider credentials) {
		RedisClient client = RedisClient.create(RedisURI.builder()
			.withHost(second.host())
			.withPort(second.port())
			.withAuthentication(credentials)
			.build());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			connection.sync().set("credentials-choice", "b");
			return connection.sync().get("credentials-choice");
		}
		finally {
			client.shutdown();
		}
	}

	private static RedisCredentialsProvider provider(String user, String password) {
		return () -> Mono.just(RedisCredentials.just(user, password));
	}

	@Configuration(proxyBeanMethods = false)
	static class SecondRedisCredentials {

		@Bean
		RedisCredentialsProvider secondRedisCredentials() {
			return provider("app-b", B_USER_PASSWORD);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class })
	static class StarterApplication extends SecondRedisCredentials {

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(DataRedisAutoConfiguration.class)
	static class StockApplication extends SecondRedisCredentials {

	}

}
