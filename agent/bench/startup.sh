#!/usr/bin/env bash
# Start-up cost of the agent per client, with the OpenTelemetry agent as a reference row: the start-up section of the
# repository's benchmark command (bench/run at the root), which builds what it needs first.
#
#   agent/bench/startup.sh                      # build, then the start-up table
#   RUNS=20 JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java agent/bench/startup.sh
set -euo pipefail
exec "$(dirname "$0")/../../bench/run" build startup
