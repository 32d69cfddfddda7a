# The two commands of this project: `make demo` runs the sample app's demo, `make test` runs every test.
# Both install what a fresh Debian machine lacks (a JDK, redis-server), so run them as root there.

MVNW := ./mvnw -B
DEMO_JAR := sample-app/target/lettuce-tuning-sample-app.jar

.PHONY: demo test bench docs prerequisites

demo: prerequisites
	$(MVNW) -q -DskipTests -pl sample-app -am install
	java -Djava.awt.headless=true -jar $(DEMO_JAR) --demo

test: prerequisites
	$(MVNW) verify

# Regenerates docs/configuration-properties.md from the configuration metadata (the build checks it is current).
docs:
	$(MVNW) -q -DskipTests -pl docs -am install
	$(MVNW) -q -pl docs exec:java -Dexec.mainClass=io.github.lettucetuning.docs.PropertyReference -Dexec.args=$(CURDIR)/docs

# The JMH suite (about 85 minutes on 2 cores): every mode against stock Boot and Jedis, the timer, then the report
# in docs/benchmarks/. `benchmarks/scripts/run-all.sh --quick` is a 6-minute smoke run.
bench: prerequisites
	bash benchmarks/scripts/run-all.sh

prerequisites:
	@command -v javac >/dev/null 2>&1 || { apt-get update && apt-get install -y openjdk-17-jdk-headless; }
	@command -v redis-server >/dev/null 2>&1 || { apt-get update && apt-get install -y redis-server; }
	@# iptables lets the fault tests blackhole a node (they skip, saying why, where it cannot run).
	@command -v iptables >/dev/null 2>&1 || { apt-get update && apt-get install -y iptables || true; }
