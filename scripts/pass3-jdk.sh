#!/bin/sh
# Prints the JDK that `make test` runs its third pass with: the one JDK_PASS3 (or JDK21_HOME, or the older
# JDK25_HOME) names when set, otherwise the newest JDK 21 or later among JAVA_HOME and the directories under
# /usr/lib/jvm (JVM_DIRS, a space-separated list, replaces /usr/lib/jvm). Exits 1, saying why on standard error,
# when there is none, and 2 when the JDK a variable names is not one.
set -eu

# The feature version of the JDK in $1 (25 for 25.0.1), from its release file or else from java itself.
feature_version() {
	if [ -r "$1/release" ]; then
		sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release"
	else
		"$1/bin/java" -XshowSettings:properties -version 2>&1 \
			| sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p'
	fi
}

# Prints the feature version of $1 when it is a JDK (javac included) of version 21 or later.
usable() {
	[ -x "$1/bin/javac" ] && [ -x "$1/bin/java" ] || return 1
	version=$(feature_version "$1")
	[ -n "$version" ] && [ "$version" -ge 21 ] && echo "$version"
}

for variable in JDK_PASS3 JDK21_HOME JDK25_HOME; do
	eval "chosen=\${$variable:-}"
	if [ -n "$chosen" ]; then
		if usable "$chosen" > /dev/null; then
			echo "$chosen"
			exit 0
		fi
		echo "$variable=$chosen is not a JDK 21 or later (no bin/javac, or an older version)" >&2
		exit 2
	fi
done

best=""
best_version=0
for dir in ${JVM_DIRS:-/usr/lib/jvm}; do
	for candidate in ${JAVA_HOME:-} "$dir"/*; do
		[ -d "$candidate" ] || continue
		version=$(usable "$candidate") || continue
		if [ "$version" -gt "$best_version" ]; then
			best="$candidate"
			best_version="$version"
		fi
	done
done
if [ -z "$best" ]; then
	echo "no JDK 21 or later in JAVA_HOME (${JAVA_HOME:-unset}) or under ${JVM_DIRS:-/usr/lib/jvm}; set JDK_PASS3 to one" >&2
	exit 1
fi
echo "$best"
