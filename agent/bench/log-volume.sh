#!/usr/bin/env bash
# Lines the agent writes during a total outage (docs/reference.md#what-it-reports target at info: at most 100 in 60 s at
# 200 calls/s).
#
# Runs integration-tests' OutageApp (JDK HttpURLConnection, no agent code) with -javaagent on the built-in default
# policy: RATE calls per second for DURATION seconds against a loopback server of its own that answers every request
# with 503, then stays LINGER_MS so that the last log window ends; once at log=info and once at log=debug. Counts the
# lines on stderr that start with "retry-agent", by kind.
#
#   cd agent && bench/log-volume.sh              # after `mvn -B package -DskipTests` (needs target/retry-agent.jar)
#   RATE=200 DURATION=60 LEVELS="info debug" JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java bench/log-volume.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RATE=${RATE:-200}
DURATION=${DURATION:-60}
LINGER_MS=${LINGER_MS:-12000}
LEVELS=${LEVELS:-info debug}
JAVA=${JAVA:-java}
JAVAC=${JAVAC:-javac}
AGENT_JAR=${AGENT_JAR:-target/retry-agent.jar}
[ -f "$AGENT_JAR" ] || { echo "no agent jar at $AGENT_JAR: run mvn -B package -DskipTests first" >&2; exit 1; }

OUT=target/bench-log-volume
mkdir -p "$OUT/classes"
"$JAVAC" -nowarn --release 17 -d "$OUT/classes" ../integration-tests/src/main/java/dev/retryagent/it/apps/OutageApp.java

echo "java: $("$JAVA" -version 2>&1 | head -1)"
for level in $LEVELS; do
  "$JAVA" "-javaagent:$AGENT_JAR=log=$level" -cp "$OUT/classes" dev.retryagent.it.apps.OutageApp \
      --rate "$RATE" --seconds "$DURATION" --linger-ms "$LINGER_MS" > "$OUT/$level.out" 2> "$OUT/$level.err"
  total=$(grep -c '^retry-agent' "$OUT/$level.err" || true)
  retry=$(grep -c '^retry-agent retry ' "$OUT/$level.err" || true)
  giveup=$(grep -c '^retry-agent give up ' "$OUT/$level.err" || true)
  summary=$(grep -c '^retry-agent summary ' "$OUT/$level.err" || true)
  echo "log=$level: $(grep CALLS-DONE "$OUT/$level.out")"
  echo "log=$level: retry-agent lines: $total (retry $retry, give up $giveup, summary $summary, other $((total - retry - giveup - summary)))"
done
echo "stderr kept in $OUT/{$(echo "$LEVELS" | tr ' ' ',')}.err"
