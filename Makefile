# The two commands of this project: `make demo` runs the sample app's demo, `make test` runs every test.
# Both install what a fresh Debian machine lacks (a JDK, redis-server), so run them as root there.

MVNW := ./mvnw -B
DEMO_JAR := sample-app/target/lettuce-tuning-sample-app.jar

.PHONY: demo test bench docs prerequisites

demo: prerequisites
	$(MVNW) -q -DskipTests -pl sample-app -am package
	java -Djava.awt.headless=true -jar $(DEMO_JAR) --demo

# The JDK of the third pass: scripts/pass3-jdk.sh picks the newest JDK 21 or later among JAVA_HOME and
# /usr/lib/jvm/* (Temurin 25 beside the system's JDK 17 on our machines); JDK_PASS3=<path> chooses one.
# Without one, pass 3 is skipped, saying so, except under CI=true, where that is an error.
# `make test-jdk` prints the choice and runs nothing else.
PASS3_JDK := scripts/pass3-jdk.sh

# Three passes (about 28 minutes on 2 cores; README "Versions" has the matrix):
# 1. JDK 17 and the Lettuce that Spring Boot 4.1 manages: every module's unit and integration tests, then
#    consumer-tests builds an app like a user's on Boot 4.0 (expects the version failure) and on Boot 4.1
#    (SET/GET, health, an AOT-processed run).
# 2. JDK 17 and the newest Lettuce 7.x (profile lettuce-latest): the same tests of every module that runs Lettuce.
# 3. JDK 21 or later (25 on our machines): every module compiled anew (into target/java25), its unit tests, the
#    consumer apps again, and the integration tests that need JDK 21+ (virtual threads), which pass 1 on JDK 17 skips.
test: prerequisites test-jdk
	@echo "== $$(date -u +%T) pass 1: $$(java -version 2>&1 | head -1), Boot-managed Lettuce, consumer apps on Boot 4.0 and 4.1"
	$(MVNW) verify
	@echo "== $$(date -u +%T) pass 2: newest Lettuce 7.x"
	$(MVNW) verify -Plettuce-latest -pl autoconfigure,sample-app,benchmarks -am
	@if jdk=$$($(PASS3_JDK) 2>/dev/null); then \
		echo "== $$(date -u +%T) pass 3: $$("$$jdk/bin/java" -version 2>&1 | head -1), unit tests, consumer apps, virtual threads"; \
		echo "JAVA_HOME=\"$$jdk\" $(MVNW) clean verify -Pjava25 -Dit.test='VirtualThreads*IntegrationTests' -Dfailsafe.failIfNoSpecifiedTests=false"; \
		JAVA_HOME="$$jdk" $(MVNW) clean verify -Pjava25 -Dit.test='VirtualThreads*IntegrationTests' -Dfailsafe.failIfNoSpecifiedTests=false \
			&& echo "== $$(date -u +%T) make test: all passes succeeded"; \
	else \
		echo "== $$(date -u +%T) make test: passes 1 and 2 succeeded; pass 3 SKIPPED: $$($(PASS3_JDK) 2>&1 >/dev/null)"; \
	fi

# Which JDK pass 3 of `make test` will use. Without one it says that pass 3 will be skipped and why; under CI=true, or
# when JDK_PASS3 names no JDK 21 or later, it fails instead, before any pass runs.
.PHONY: test-jdk
test-jdk:
	@jdk=$$($(PASS3_JDK)); found=$$?; \
	if [ $$found -eq 0 ]; then \
		echo "make test: pass 3 runs on $$jdk ($$("$$jdk/bin/java" -version 2>&1 | head -1))"; \
	elif [ $$found -eq 2 ]; then \
		exit 1; \
	elif [ "$${CI:-}" = true ]; then \
		echo "make test: CI=true needs a JDK 21 or later for pass 3 (virtual threads); set JDK_PASS3" >&2; exit 1; \
	else \
		echo "make test: pass 3 (JDK 21+ unit tests, consumer apps, virtual-thread tests) will be SKIPPED: no JDK 21 or later found"; \
	fi

# The integration tests of test-support and autoconfigure (with their unit tests) against Valkey instead of Redis:
# LETTUCE_TUNING_SERVER=valkey makes the test support start valkey-server (or a redis-server whose --version says
# Valkey) and valkey-cli from the PATH; none there is an error, never a skip. VALKEY_BIN=<dir> puts a Valkey of
# your own first on the PATH, e.g. `make test-valkey VALKEY_BIN=/opt/valkey-src/src` for one built from source.
# README "Versions" says which Valkey was tested.
.PHONY: test-valkey
test-valkey:
	@command -v javac >/dev/null 2>&1 || { apt-get update && apt-get install -y openjdk-17-jdk-headless; }
	PATH="$(if $(VALKEY_BIN),$(VALKEY_BIN):)$$PATH" LETTUCE_TUNING_SERVER=valkey $(MVNW) verify -pl test-support,autoconfigure

# Regenerates docs/configuration-properties.md from the configuration metadata (the build checks it is current).
docs:
	$(MVNW) -q -DskipTests -pl docs -am install
	$(MVNW) -q -pl docs exec:java -Dexec.mainClass=io.github.lettucetuning.docs.PropertyReference -Dexec.args=$(CURDIR)/docs

# The benchmark matrix (benchmarks/scripts/matrix.sh, python3 for its summary): stock Boot against the default and
# multi modes, 7 workloads x 1, 16 and 200 threads and an open-loop cell, then SET, GET and 80/20 on a 6-node cluster
# at 16 and 200 threads, 5 paired rounds, about 120 minutes on 2 cores (87 standalone, 33 cluster).
# `make bench QUICK=1` runs the headline cells only, 3 rounds of short iterations, about 17 minutes. `make bench-modes`
# runs the older suite (benchmarks/scripts/run-all.sh, every mode against stock Boot and Jedis and the timer, about
# 85 minutes) and writes benchmarks/results/modes-summary.md.
bench: prerequisites
	@command -v python3 >/dev/null 2>&1 || { apt-get update && apt-get install -y python3; }
	bash benchmarks/scripts/matrix.sh $(if $(QUICK),--quick)

# The steady run (benchmarks/scripts/steady.sh): stock Boot, the default and the multi mode one after another, each
# 10 minutes of 80/20 GET/SET at 60 threads against a 3-master, 3-replica cluster of its own, the throughput per minute
# and the last minute over the first in benchmarks/results/steady/steady.md; about 33 minutes. MINUTES=N shortens it.
.PHONY: bench-steady
bench-steady: prerequisites
	@command -v python3 >/dev/null 2>&1 || { apt-get update && apt-get install -y python3; }
	bash benchmarks/scripts/steady.sh

.PHONY: bench-modes
bench-modes: prerequisites
	@command -v python3 >/dev/null 2>&1 || { apt-get update && apt-get install -y python3; }
	bash benchmarks/scripts/run-all.sh

prerequisites:
	@command -v javac >/dev/null 2>&1 || { apt-get update && apt-get install -y openjdk-17-jdk-headless; }
	@command -v redis-server >/dev/null 2>&1 || { apt-get update && apt-get install -y redis-server; }
	@# openssl makes the certificates of the TLS tests (certificate rotation, refused handshakes).
	@command -v openssl >/dev/null 2>&1 || { apt-get update && apt-get install -y openssl; }
	@# iptables lets the fault tests blackhole a node: they skip, saying why, where it cannot run, and fail where CI=true.
	@command -v iptables >/dev/null 2>&1 || { apt-get update && apt-get install -y iptables || true; }
	@# ss (iproute2) destroys a killed server's sockets, as a reboot would, for the half-open subscriber test.
	@command -v ss >/dev/null 2>&1 || { apt-get update && apt-get install -y iproute2 || true; }

# The fault campaign (docs/fault-campaign.md): one seeded schedule of overlapping faults per topology (standalone,
# Sentinel, cluster), with stock Boot and the starter's shared, multi and pooled modes side by side through it, under
# sync, async, reactive, pipelined, transactional, blocking and Pub/Sub traffic; invariants asserted for the starter,
# stock Boot's violations reported. Without SEED it runs each topology's CI seed (about 3 minutes on 2 cores).
# TOPOLOGY=standalone|sentinel|cluster picks one, SEED=n[,m] replays seeds, MINUTES=m lengthens each schedule,
# SETUPS=stock,shared,multi,pooled picks set-ups, PACE=ms slows each worker (20 for 30-minute runs), FROM=s replays
# only the faults from that second on (MINUTES still ends the schedule), e.g. a moment a long run found.
# Report: autoconfigure/target/chaos/report-<topology>.md
CHAOS_TESTS = $(if $(TOPOLOGY),$(shell echo $(TOPOLOGY) | sed 's/^./\U&/')FaultCampaignIntegrationTests,*FaultCampaignIntegrationTests)
.PHONY: chaos
chaos: prerequisites
	$(MVNW) -q -DskipTests -pl autoconfigure -am install
	$(MVNW) -pl autoconfigure verify -Dit.test='$(CHAOS_TESTS)' -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false \
		$(if $(SEED),-Dchaos.seed=$(SEED)) $(if $(MINUTES),-Dchaos.minutes=$(MINUTES)) \
		$(if $(SETUPS),-Dchaos.setups=$(SETUPS)) $(if $(PACE),-Dchaos.pace=$(PACE)) $(if $(FROM),-Dchaos.from=$(FROM))
	@echo "Reports: autoconfigure/target/chaos/report-*.md"
