#!/usr/bin/env bash
# What any -javaagent costs at start-up, against what this agent costs: the floor under the start-up table of
# bench/run. Per app (bench/src/dev/retryagent/bench/startup: own loopback server, one call, exit), the variants
#   none         no agent
#   empty        -javaagent: a jar of one class whose premain returns at once (bench NoopAgent), with the agent jar's
#                manifest attributes: the JVM's own cost of any agent (java.instrument, JPLIS, opening a jar, premain)
#   empty-ours   the same premain in a copy of the agent jar: adds opening our jar (its entries, its manifest)
#   transformer  the empty agent adding a transformer that returns null: adds the JVM handing every class loaded
#                afterwards to a transformer, which any agent that weaves at class load pays
#   agent        retry-agent (log=warn, as in bench/run)
#   baseline     only with BASELINE_JAR=<another build of the agent jar>: that jar, for a before/after in one alternation
# alternate run by run (the order rotates), and the script prints the medians of wall and CPU (user + sys), the
# classes each variant loads (one extra run with -Xlog:class+load: all, from the CDS archive, the agent's), and the
# share of the agent's cost that is the JVM's.
#
#   agent/bench/startup-floor.sh                 # after bench/run build (or mvn package of agent + integration-tests)
#   RUNS=20 APPS="HttpUrlConnection OkHttp" JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java agent/bench/startup-floor.sh
#   BASELINE_JAR=/tmp/retry-agent-main.jar agent/bench/startup-floor.sh
#
# Where the agent's own time goes, phase by phase on premain's thread (wall/CPU in microseconds):
#   java -Dretry.agent.test.startupTimes=true -javaagent:agent/target/retry-agent.jar=log=warn -cp ... App
#
# A shared machine's load skews the figures: the script prints the load average before and after.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
JAVA=${JAVA:-java}
JAVAC=${JAVAC:-javac}
JAR_TOOL=${JAR_TOOL:-jar}
RUNS=${RUNS:-10}
APPS=${APPS:-HttpUrlConnection OkHttp}
AGENT_JAR=${AGENT_JAR:-$ROOT/agent/target/retry-agent.jar}
LIBS=${LIBS:-$ROOT/integration-tests/target/client-libs}
W=$ROOT/target/bench/floor
BASELINE_JAR=${BASELINE_JAR:-}
VARIANTS=(none empty empty-ours transformer agent)
[ -z "$BASELINE_JAR" ] || VARIANTS+=(baseline)

[ -f "$AGENT_JAR" ] || { echo "no agent jar at $AGENT_JAR: run bench/run build first" >&2; exit 1; }
[ -d "$LIBS/okhttp-4.12" ] || { echo "no client jars in $LIBS: run bench/run build first" >&2; exit 1; }
rm -rf "$W"
mkdir -p "$W/classes" "$W/manifest" "$W/runs"

median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) {print "NaN"} else if (NR % 2) {print a[(NR+1)/2]} else {print (a[NR/2]+a[NR/2+1])/2}}'; }
jars() { ls "$LIBS/$1"/*.jar | tr '\n' ':'; }

"$JAVAC" -nowarn --release 17 -d "$W/classes" -cp "$(jars okhttp-4.12)$(jars httpclient5-5.6)$(jars httpclient4-4.5.14)" "$ROOT"/bench/src/dev/retryagent/bench/startup/*.java

# The agent jar's manifest, its agent classes replaced by the empty one.
(cd "$W/manifest" && "$JAR_TOOL" xf "$AGENT_JAR" META-INF/MANIFEST.MF)
NOOP=dev.retryagent.bench.startup.NoopAgent
sed -e "s/^Premain-Class: .*/Premain-Class: $NOOP/" -e "s/^Agent-Class: .*/Agent-Class: $NOOP/" \
  "$W/manifest/META-INF/MANIFEST.MF" | grep -v -e '^Manifest-Version' -e '^Created-By' -e '^Build-Jdk' > "$W/noop.mf"
grep -q "^Premain-Class: $NOOP" "$W/noop.mf" || { echo "no Premain-Class in the agent jar's manifest" >&2; exit 1; }
"$JAR_TOOL" cfm "$W/noop.jar" "$W/noop.mf" -C "$W/classes" dev/retryagent/bench/startup/NoopAgent.class \
  -C "$W/classes" 'dev/retryagent/bench/startup/NoopAgent$1.class'
cp "$AGENT_JAR" "$W/noop-in-agent.jar"
"$JAR_TOOL" ufm "$W/noop-in-agent.jar" "$W/noop.mf" -C "$W/classes" dev/retryagent/bench/startup/NoopAgent.class \
  -C "$W/classes" 'dev/retryagent/bench/startup/NoopAgent$1.class' 2> "$W/jar-update.err" || { cat "$W/jar-update.err" >&2; exit 1; }

options() { # variant -> JVM options
  case $1 in
    none) ;;
    empty) echo "-javaagent:$W/noop.jar" ;;
    empty-ours) echo "-javaagent:$W/noop-in-agent.jar" ;;
    transformer) echo "-javaagent:$W/noop.jar=transformer" ;;
    agent) echo "-javaagent:$AGENT_JAR=log=warn" ;;
    baseline) echo "-javaagent:$BASELINE_JAR=log=warn" ;;
  esac
}

run() { # out-prefix classpath main variant [extra JVM options...]: prints "wall_ms cpu_ms"
  local prefix=$1 cp=$2 main=$3 variant=$4
  shift 4
  local TIMEFORMAT='%3R %3U %3S'
  # shellcheck disable=SC2046
  { time "$JAVA" $(options "$variant") -Dbench.threadCpu=true "$@" -cp "$cp" "$main" > "$prefix.out" 2> "$prefix.err"; } \
    2> "$prefix.time" || { cat "$prefix.out" "$prefix.err" >&2; exit 1; }
  grep -q 'status=200' "$prefix.out" || { echo "$main ($variant) failed:" >&2; cat "$prefix.out" "$prefix.err" >&2; exit 1; }
  # wall, CPU, and of the CPU the main thread's and the JIT compilers' (bench OneShotServer's thread_cpu_us)
  local threads
  threads=$(sed -n 's/.*thread_cpu_us=main:\([0-9]*\),jit:\([0-9]*\).*/\1 \2/p' "$prefix.out")
  tail -1 "$prefix.time" | awk -v t="${threads:-0 0}" '{split(t, m, " "); printf "%d %d %d %d\n", $1 * 1000, ($2 + $3) * 1000, m[1] / 1000, m[2] / 1000}'
}

classes() { # class+load log -> "all shared agent"
  awk '/ source: / {
      all++
      if ($0 ~ /source: shared objects file/) shared++
      if ($0 ~ / dev\.retryagent\.agent\./ || $0 ~ / dev\.retryagent\.(policy|engine|shaded)\./) agent++
    }
    END {printf "%d %d %d\n", all, shared, agent}' "$1"
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
echo "JDK: $("$JAVA" -version 2>&1 | head -1); $(nproc) cores; load average before: $LOAD_BEFORE; $RUNS alternating runs"
echo
echo "| app | variant | wall ms | CPU ms | wall vs none | CPU vs none | CPU main thread / JIT ms | classes loaded (from CDS; agent's) |"
echo "|---|---|---|---|---|---|---|---|"
SUMMARY=""
for app in $APPS; do
  main=dev.retryagent.bench.startup.${app}Startup
  cp="$W/classes"
  [ "$app" = OkHttp ] && cp="$cp:$(jars okhttp-4.12)"
  [ "$app" = HttpClient5 ] && cp="$cp:$(jars httpclient5-5.6)"
  [ "$app" = HttpClient4 ] && cp="$cp:$(jars httpclient4-4.5.14)"
  for v in "${VARIANTS[@]}"; do
    : > "$W/runs/$app-$v.txt"
    run "$W/runs/$app-$v-warm" "$cp" "$main" "$v" > /dev/null
    run "$W/runs/$app-$v-classes" "$cp" "$main" "$v" "-Xlog:class+load=info:file=$W/runs/$app-$v-classes.log" > /dev/null
  done
  n=${#VARIANTS[@]}
  for r in $(seq 0 $((RUNS - 1))); do
    for k in $(seq 0 $((n - 1))); do
      v=${VARIANTS[$(((r + k) % n))]}
      run "$W/runs/$app-$v-last" "$cp" "$main" "$v" >> "$W/runs/$app-$v.txt"
    done
  done
  w0=$(awk '{print $1}' "$W/runs/$app-none.txt" | median); c0=$(awk '{print $2}' "$W/runs/$app-none.txt" | median)
  for v in "${VARIANTS[@]}"; do
    w=$(awk '{print $1}' "$W/runs/$app-$v.txt" | median); c=$(awk '{print $2}' "$W/runs/$app-$v.txt" | median)
    cm=$(awk '{print $3}' "$W/runs/$app-$v.txt" | median); cj=$(awk '{print $4}' "$W/runs/$app-$v.txt" | median)
    read -r all shared agent <<< "$(classes "$W/runs/$app-$v-classes.log")"
    eval "W_${v//-/_}=$w C_${v//-/_}=$c"
    awk -v a="$app" -v v="$v" -v w="$w" -v c="$c" -v w0="$w0" -v c0="$c0" -v cm="$cm" -v cj="$cj" -v all="$all" -v sh="$shared" -v ag="$agent" 'BEGIN {
      printf "| %s | %s | %d | %d | %+d ms (%.2fx) | %+d ms (%.2fx) | %d / %d | %d (%d; %d) |\n", a, v, w, c, w-w0, w/w0, c-c0, c/c0, cm, cj, all, sh, ag }'
  done
  SUMMARY="$SUMMARY$(awk -v a="$app" -v w0="$w0" -v c0="$c0" -v we="$W_empty" -v ce="$C_empty" -v wo="$W_empty_ours" \
    -v co="$C_empty_ours" -v wt="$W_transformer" -v ct="$C_transformer" -v wa="$W_agent" -v ca="$C_agent" 'BEGIN {
    printf "%s: of the agent'"'"'s %+d ms wall (%+d ms CPU), %+d ms (%+d ms CPU) is the JVM'"'"'s own cost of any -javaagent, ", a, wa-w0, ca-c0, we-w0, ce-c0
    printf "%+d ms (%+d ms CPU) more to open the agent'"'"'s jar instead of a one-class jar; ", wo-we, co-ce
    printf "a transformer that changes nothing costs %+d ms (%+d ms CPU) over the empty agent; ", wt-we, ct-ce
    printf "the agent'"'"'s own work: %+d ms (%+d ms CPU) over the empty agent in its jar.\n", wa-wo, ca-co }')
"
  if [ -n "$BASELINE_JAR" ]; then
    SUMMARY="$SUMMARY$(awk -v a="$app" -v w0="$w0" -v c0="$c0" -v wb="$W_baseline" -v cb="$C_baseline" -v wa="$W_agent" -v ca="$C_agent" 'BEGIN {
      printf "%s: baseline jar %+d ms wall (%+d ms CPU) over none, this agent %+d ms (%+d ms CPU).\n", a, wb-w0, cb-c0, wa-w0, ca-c0 }')
"
  fi
done
echo
printf '%s' "$SUMMARY"
echo "Load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
