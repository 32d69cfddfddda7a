package io.github.lettucetuning.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.testsupport.chaos.FaultKind;
import io.github.lettucetuning.testsupport.chaos.FaultSchedule;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault campaign (issue 28) against one topology: for each seed, one schedule of
 * overlapping faults, with stock Boot and every mode of the starter running side by side
 * through it. The invariants must hold for the starter; stock Boot's violations go to the
 * report only.
 * <p>
 * By default each topology runs its CI seed with a {@value #CI_SECONDS} s schedule.
 * {@code -Dchaos.seed=N[,M]} replays seeds, {@code -Dchaos.minutes=M} lengthens the
 * schedule, {@code -Dchaos.setups=stock,shared} picks set-ups and {@code -Dchaos.pace=ms}
 * sets the pause between a worker's steps (longer runs pace their workers so that the
 * journal stays in memory); {@code make chaos} passes them on. The report is written to
 * {@code target/chaos/report-<topology>.md}.
 */
final class FaultCampaign {

	static final int CI_SECONDS = 30;

	private FaultCampaign() {
	}

	static void run(ChaosServers servers, long ciSeed) throws Exception {
		Duration length = length();
		List<Setup> setups = Setup.parse(System.getProperty("chaos.setups", ""));
		List<CampaignRun.Result> results = new ArrayList<>();
		List<String> failures = new ArrayList<>();
		String topology = servers.topology().name().toLowerCase(Locale.ROOT);
		for (long seed : seeds(ciSeed)) {
			FaultSchedule schedule = FaultSchedule.draw(seed, length, FaultKind.forTopology(servers.topology()));
			System.out.println("Fault campaign, " + topology + ", " + schedule.describe());
			try {
				for (CampaignRun.Result result : new CampaignRun(servers, schedule, setups, pace()).run(app(servers))) {
					results.add(result);
					if (result.setup().starter() && !result.verdict().violations().isEmpty()) {
						failures.add(result.setup().label() + ": replay with: make chaos TOPOLOGY=" + topology
								+ " SEED=" + seed + " MINUTES=" + minutesProperty() + "\n" + schedule.describe()
								+ result.verdict().describe());
					}
				}
			}
			finally {
				recover(servers, failures);
			}
		}
		Path report = CampaignReport.write(Path.of("target", "chaos", "report-" + topology + ".md"), results);
		System.out.println("Fault campaign report: " + report.toAbsolutePath());
		assertThat(failures).as("invariants broken with the starter (report: %s)", report.toAbsolutePath()).isEmpty();
	}

	// A topology the campaign could not make whole again is a failure of its own,
	// reported
	// with the rest rather than in place of the report
	private static void recover(ChaosServers servers, List<String> failures) {
		try {
			servers.recover();
		}
		catch (RuntimeException ex) {
			failures.add("The servers did not recover after the run: " + ex);
		}
	}

	private static ApplicationContextRunner app(ChaosServers servers) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LettuceTuningAutoConfiguration.class,
					DataRedisAutoConfiguration.class, DataRedisReactiveAutoConfiguration.class))
			.withPropertyValues(servers.properties())
			.withPropertyValues("spring.application.name=chaos-it");
	}

	private static long[] seeds(long ciSeed) {
		String seed = System.getProperty("chaos.seed", "");
		return seed.isBlank() ? new long[] { ciSeed }
				: Arrays.stream(seed.split(",")).map(String::trim).mapToLong(Long::parseLong).toArray();
	}

	private static long pace() {
		return Long.parseLong(System.getProperty("chaos.pace", "5").trim());
	}

	private static Duration length() {
		String minutes = minutesProperty();
		return minutes.isBlank() ? Duration.ofSeconds(CI_SECONDS)
				: Duration.ofSeconds(Math.round(Double.parseDouble(minutes) * 60));
	}

	private static String minutesProperty() {
		return System.getProperty("chaos.minutes", "").trim();
	}

}
