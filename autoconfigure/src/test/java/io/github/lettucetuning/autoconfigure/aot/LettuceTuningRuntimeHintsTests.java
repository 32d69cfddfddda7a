package io.github.lettucetuning.autoconfigure.aot;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LettuceTuningRuntimeHints}.
 */
class LettuceTuningRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	@Test
	void registrarIsListedInAotFactories() {
		assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(LettuceTuningRuntimeHints.class);
	}

	@Test
	void probedClassesAreRegistered() {
		register();
		for (String probed : LettuceTuningRuntimeHints.PROBED_CLASSES) {
			assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(probed))).as(probed)
				.accepts(this.hints);
		}
	}

	@Test
	void everyVarHandleFieldIsRegistered() throws ClassNotFoundException {
		register();
		List<Field> fields = new ArrayList<>();
		fields.add(field(LettuceTuningRuntimeHints.WHEEL_TIMER, "lifecycle"));
		fields.add(field(LettuceTuningRuntimeHints.WHEEL_TIMEOUT, "state"));
		for (String name : new String[] { "queued", "cancelled", "added", "removed" }) {
			fields.add(field(LettuceTuningRuntimeHints.STRIPE_FIELDS, name));
		}
		for (Field field : fields) {
			assertThat(RuntimeHintsPredicates.reflection().onField(field)).as(field.toString()).accepts(this.hints);
		}
	}

	@Test
	void springFactoriesEntriesCanBeInstantiated() throws ClassNotFoundException {
		register();
		for (String factory : LettuceTuningRuntimeHints.FACTORIES) {
			ClassUtils.forName(factory, null);
			assertThat(RuntimeHintsPredicates.reflection()
				.onType(TypeReference.of(factory))
				.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).as(factory).accepts(this.hints);
		}
	}

	private void register() {
		new LettuceTuningRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	private static Field field(String className, String name) throws ClassNotFoundException {
		Field field = ReflectionUtils.findField(ClassUtils.forName(className, null), name);
		assertThat(field).as(className + "." + name).isNotNull();
		return field;
	}

}
