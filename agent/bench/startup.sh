#!/usr/bin/env bash
# Start-up cost of the agent (SPEC budget: <= 1.25x a small app's start time).
#
# Runs bench/StartupApp (one OkHttp call to its own loopback server, then exit) RUNS times without and RUNS
# times with -javaagent:target/retry-agent.jar, alternating, after WARMUP unmeasured runs of each, and prints
# the mean and median wall time of each and their ratio.
#
#   cd agent && bench/startup.sh                 # after `mvn -B verify` (or package + the client-libs copy)
#   RUNS=20 JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java AGENT_ARGS=log=warn bench/startup.sh
#
# OkHttp jars: LIBS (a directory of jars), default ../integration-tests/target/client-libs/okhttp-4.12
# (filled by `mvn verify`), else the local Maven repository.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-10}
WARMUP=${WARMUP:-2}
JAVA=${JAVA:-java}
JAVAC=${JAVAC:-javac}
AGENT_JAR=${AGENT_JAR:-target/retry-agent.jar}
AGENT_ARGS=${AGENT_ARGS:-}
LIBS=${LIBS:-../integration-tests/target/client-libs/okhttp-4.12}

if [ -d "$LIBS" ]; then
  CP=$(ls "$LIBS"/*.jar | tr '\n' ':')
else
  M2=${M2:-$HOME/.m2/repository}
  CP="$M2/com/squareup/okhttp3/okhttp/4.12.0/okhttp-4.12.0.jar:$M2/com/squareup/okio/okio-jvm/3.6.0/okio-jvm-3.6.0.jar"
  CP="$CP:$M2/org/jetbrains/kotlin/kotlin-stdlib/1.8.21/kotlin-stdlib-1.8.21.jar"
  CP="$CP:$M2/org/jetbrains/kotlin/kotlin-stdlib-jdk8/1.8.21/kotlin-stdlib-jdk8-1.8.21.jar"
  CP="$CP:$M2/org/jetbrains/kotlin/kotlin-stdlib-jdk7/1.8.21/kotlin-stdlib-jdk7-1.8.21.jar"
fi
[ -f "$AGENT_JAR" ] || { echo "no agent jar at $AGENT_JAR: run mvn -B package first" >&2; exit 1; }

OUT=target/bench-startup
mkdir -p "$OUT/classes"
"$JAVAC" -nowarn -d "$OUT/classes" -cp "$CP" bench/StartupApp.java
CP="$OUT/classes:$CP"
AGENT_OPT="-javaagent:$AGENT_JAR${AGENT_ARGS:+=$AGENT_ARGS}"

run_ms() { # prints the wall time of one run in ms; fails if the app did not print status=200
  local start end
  start=$(date +%s%N)
  "$JAVA" "$@" -cp "$CP" StartupApp > "$OUT/last.out" 2> "$OUT/last.err" || { cat "$OUT/last.out" "$OUT/last.err" >&2; exit 1; }
  end=$(date +%s%N)
  grep -q "status=200" "$OUT/last.out" || { echo "unexpected output:" >&2; cat "$OUT/last.out" "$OUT/last.err" >&2; exit 1; }
  echo $(( (end - start) / 1000000 ))
}

for _ in $(seq "$WARMUP"); do run_ms > /dev/null; run_ms "$AGENT_OPT" > /dev/null; done
: > "$OUT/without.txt"; : > "$OUT/with.txt"
for _ in $(seq "$RUNS"); do
  run_ms >> "$OUT/without.txt"
  run_ms "$AGENT_OPT" >> "$OUT/with.txt"
done

stats() { sort -n "$1" | awk '{a[NR]=$1; s+=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f %.1f", s/NR, m}'; }
read -r mean0 med0 <<< "$(stats "$OUT/without.txt")"
read -r mean1 med1 <<< "$(stats "$OUT/with.txt")"
echo "java: $("$JAVA" -version 2>&1 | head -1)"
echo "runs: $RUNS each, alternating, after $WARMUP warm-up runs each"
echo "without agent: mean ${mean0} ms, median ${med0} ms   ($(tr '\n' ' ' < "$OUT/without.txt"))"
echo "with agent:    mean ${mean1} ms, median ${med1} ms   ($(tr '\n' ' ' < "$OUT/with.txt"))"
awk -v a="$mean1" -v b="$mean0" -v c="$med1" -v d="$med0" 'BEGIN {printf "ratio: %.3f (means), %.3f (medians)\n", a/b, c/d}'
