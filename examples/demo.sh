#!/usr/bin/env bash
# Runs the demo "legacy" application twice against its embedded flaky dependency: without the agent,
# then with it on the built-in default policy. Build first: mvn -B -q package -DskipTests
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
agent="$root/agent/target/retry-agent.jar"
cp="$root/examples/target/classes:$root/examples/target/lib/*"
if [ ! -f "$agent" ] || [ ! -d "$root/examples/target/lib" ]; then
  echo "build first: mvn -B -q package -DskipTests" >&2
  exit 1
fi
echo "== without the agent"
java -cp "$cp" dev.retryagent.examples.LegacyDemo
echo
echo "== with -javaagent:agent/target/retry-agent.jar (built-in default policy)"
java -javaagent:"$agent" -cp "$cp" dev.retryagent.examples.LegacyDemo
