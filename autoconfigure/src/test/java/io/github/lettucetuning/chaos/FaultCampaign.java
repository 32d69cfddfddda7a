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
import io.github.lettucetuning.testsupport.chaos.ScheduledFault;

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
 * journal stays in memory); {@code -Dchaos.from=s} replays only the faults from that
 * second of the schedule on (the schedule ends at {@code chaos.minutes}), shifted to
 * start after the warm-up: a moment found in a long run replays in seconds.
 * {@code make chaos} passes them on. The report is written to
 * {@code target/chaos/report-<topology>.md}.
 */
final class FaultCampaign {

	static final int CI_SECONDS = 30;

	private FaultCampaign() {
	}

	static void run(ChaosServers servers, long ciSeed) throws Exception {
		String from = System.getProperty("chaos.from", "").trim();
		run(servers, seeds(ciSeed), from.isBlank() ? Duration.ZERO : seconds(from), length());
	}

	/**
	 * Replay the part of a seed's schedule that found a bug, as its regression test.
	 * @param servers the servers
	 * @param seed the seed
	 * @param from the offset of the first fault to replay
	 * @param to the end of the window: faults that end later are left out
	 * @throws Exception if the run fails
	 */
	static void replay(ChaosServers servers, long seed, Duration from, Duration to) throws Exception {
		run(servers, new long[] { seed }, from, to);
	}

	private static void run(ChaosServers servers, long[] seeds, Duration from, Duration to) throws Exception {
		List<Setup> setups = Setup.parse(System.getProperty("chaos.setups", ""));
		List<CampaignRun.Result> results = new ArrayList<>();
		List<String> failures = new ArrayList<>();
		String topology = servers.topology().name().toLowerCase(Locale.ROOT);
		for (long seed : seeds) {
			FaultSchedule schedule = window(FaultSchedule.draw(seed, to, FaultKind.forTopology(servers.topology())),
					from);
			System.out.println("Fault campaign, " + topology + ", " + schedule.describe());
			try {
				for (CampaignRun.Result result : new CampaignRun(servers, schedule, setups, pace()).run(app(servers))) {
					results.add(result);
					if (result.setup().starter() && !result.verdict().violations().isEmpty()) {
						failures.add(result.setup().label() + ": replay with: make chaos TOPOLOGY=" + topology
								+ " SEED=" + seed + " MINUTES=" + to.toMillis() / 60_000.0
								+ (from.isZero() ? "" : " FROM=" + from.toMillis() / 1000.0) + "\n"
								+ schedule.describe() + result.verdict().describe());
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
		String minutes = System.getProperty("chaos.minutes", "").trim();
		return minutes.isBlank() ? Duration.ofSeconds(CI_SECONDS)
				: Duration.ofSeconds(Math.round(Double.parseDouble(minutes) * 60));
	}

	private static Duration seconds(String seconds) {
		return Duration.ofMillis(Math.round(Double.parseDouble(seconds) * 1000));
	}

	// The faults from an offset on, moved to start after the warm-up. A schedule is
	// drawn one fault after the other, so a shorter one is the longer one's start, and
	// the faults keep their numbers.
	private static FaultSchedule window(FaultSchedule schedule, Duration from) {
		if (from.isZero()) {
			return schedule;
		}
		Duration shift = from.minus(FaultSchedule.WARM_UP);
		List<ScheduledFault> faults = schedule.faults()
			.stream()
			.filter((fault) -> fault.offset().compareTo(from) >= 0)
			.map((fault) -> new ScheduledFault(fault.index(), fault.kind(), fault.offset().minus(shift),
					fault.duration(), fault.target()))
			.toList();
		if (faults.isEmpty()) {
			throw new IllegalArgumentException("No fault of seed " + schedule.seed() + " starts between "
					+ from.toMillis() + " ms and " + schedule.length().toMillis() + " ms");
		}
		return new FaultSchedule(schedule.seed(), schedule.length().minus(shift), schedule.kinds(), faults);
	}

}
