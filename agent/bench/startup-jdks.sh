#!/usr/bin/env bash
# Start-up cost of the agent on each JDK the integration tests fork on, Java 8 included (where the agent appends its
# bootstrap jar to the boot class path instead of defining its classes in the boot loader): the integration tests'
# OutageApp (Java 8 class files, HttpURLConnection, one call to a 503 server of its own) with and without the agent
# (built-in policy, maxAttempts 1 so no wait is timed), RUNS alternating runs per variant; prints the median wall time.
#
#   mvn -B -q package -DskipTests && agent/bench/startup-jdks.sh
#   RUNS=20 JDKS="$HOME/.cache/retry-agent/jdks/java-8/bin/java" agent/bench/startup-jdks.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-15}
OLD=${RETRY_AGENT_JDKS:-$HOME/.cache/retry-agent/jdks}
JDKS=${JDKS:-"$OLD/java-8/bin/java $OLD/java-11/bin/java /usr/lib/jvm/java-17-openjdk-amd64/bin/java /usr/lib/jvm/temurin-25-jdk-amd64/bin/java"}
AGENT=agent/target/retry-agent.jar
APPS=integration-tests/target/classes
[ -f "$AGENT" ] && [ -d "$APPS/dev/retryagent/it/apps" ] || { echo "build first: mvn -B -q package -DskipTests" >&2; exit 1; }
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
printf 'version: 1\ndefaults:\n  maxAttempts: 1\n' >"$W/policy.yaml"

run_ms() { # JAVA ARGS... : wall milliseconds of one run
  local start end
  start=$(date +%s%N)
  "$@" -cp "$APPS" dev.retryagent.it.apps.OutageApp --calls 1 >"$W/out" 2>"$W/err" || { cat "$W/err" >&2; exit 1; }
  end=$(date +%s%N)
  echo $(( (end - start) / 1000000 ))
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

echo "| java | without the agent | with the agent | ratio |"
echo "|---|---|---|---|"
for java in $JDKS; do
  [ -x "$java" ] || { echo "no java at $java" >&2; exit 1; }
  : >"$W/without"; : >"$W/with"
  for _ in $(seq "$RUNS"); do
    run_ms "$java" >>"$W/without"
    run_ms "$java" "-javaagent:$AGENT=policy=$W/policy.yaml" >>"$W/with"
  done
  version=$("$java" -version 2>&1 | head -1 | awk -F'"' '{print $2}')
  a=$(median <"$W/without"); b=$(median <"$W/with")
  echo "| $version | $a ms | $b ms | $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2fx", b / a}') |"
done
