#!/usr/bin/env bash
# Class data sharing (AppCDS) with and without the agent: does the application keep its archived classes, what does
# start-up cost, and does the JVM warn?
#
# For each JDK (JAVAS, default: `java` on the PATH and Temurin 25 if installed), with the app of startup.sh
# (bench/src's OkHttpStartup: one OkHttp call to its own loopback server) packed into a jar (CDS archives classes from jars
# only), and for each archive kind:
#   static:  a class list from a training run (-XX:DumpLoadedClassList), then -Xshare:dump into static.jsa
#   dynamic: a training run with -XX:ArchiveClassesAtExit=dynamic.jsa
# both trained without the agent (a dynamic dump refuses agents unless -XX:+AllowArchivingWithJavaAgent), it
# prints, without and with -javaagent, under the same archive:
#   classes: where the application's classes (okhttp3, okio, kotlin, the app's own) came from -- the archive
#            ("shared objects file" in -Xlog:class+load) or their jar -- and how many classes the JVM took from the
#            archive in all; the agent's classes as "agent-boot" (defined in the boot loader, never archived) and
#            "agent-jar"
#   start-up: median wall and CPU (user+sys) of RUNS alternating runs, and their ratio
#   warning:  whether stderr had "Sharing is only supported for boot loader classes ..."
#
#   cd agent && bench/cds.sh                      # after `mvn -B package` (target/retry-agent.jar)
#   RUNS=20 JAVAS="/usr/lib/jvm/temurin-25-jdk-amd64/bin/java" bench/cds.sh
#
# The machine's load skews wall times: alternating runs and medians hide part of it; compare ratios, not ms.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-10}
AGENT_JAR=${AGENT_JAR:-target/retry-agent.jar}
AGENT_ARGS=${AGENT_ARGS:-}
LIBS=${LIBS:-../integration-tests/target/client-libs/okhttp-4.12}
if [ -z "${JAVAS:-}" ]; then
  JAVAS=$(command -v java)
  [ -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ] && JAVAS="$JAVAS /usr/lib/jvm/temurin-25-jdk-amd64/bin/java"
fi
[ -f "$AGENT_JAR" ] || { echo "no agent jar at $AGENT_JAR: run mvn -B package first" >&2; exit 1; }
AGENT_JAR=$(cd "$(dirname "$AGENT_JAR")" && pwd)/$(basename "$AGENT_JAR")
AGENT_OPT="-javaagent:$AGENT_JAR${AGENT_ARGS:+=$AGENT_ARGS}"
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "needs $TIME (GNU time) for CPU figures" >&2; exit 1; }

if [ -d "$LIBS" ]; then
  CP=$(ls "$LIBS"/*.jar | tr '\n' ':')
else
  M2=${M2:-$HOME/.m2/repository}
  CP="$M2/com/squareup/okhttp3/okhttp/4.12.0/okhttp-4.12.0.jar:$M2/com/squareup/okio/okio-jvm/3.6.0/okio-jvm-3.6.0.jar"
  CP="$CP:$M2/org/jetbrains/kotlin/kotlin-stdlib/1.8.21/kotlin-stdlib-1.8.21.jar"
  CP="$CP:$M2/org/jetbrains/kotlin/kotlin-stdlib-jdk8/1.8.21/kotlin-stdlib-jdk8-1.8.21.jar"
  CP="$CP:$M2/org/jetbrains/kotlin/kotlin-stdlib-jdk7/1.8.21/kotlin-stdlib-jdk7-1.8.21.jar"
fi
CP=${CP%:}

OUT=$(pwd)/target/bench-cds
rm -rf "$OUT"
mkdir -p "$OUT/classes"
JAVAC=${JAVAC:-javac}
APP_SRC=../bench/src/dev/retryagent/bench/startup
"$JAVAC" -nowarn --release 11 -d "$OUT/classes" -cp "$CP" "$APP_SRC/OkHttpStartup.java" "$APP_SRC/OneShotServer.java"
JAR_TOOL=${JAR_TOOL:-jar}
"$JAR_TOOL" cf "$OUT/app.jar" -C "$OUT/classes" .
CP="$OUT/app.jar:$CP"
WARNING="Sharing is only supported for boot loader classes"

run() { # run <out prefix> <java> <options...>: one run, stdout/stderr/time kept; fails unless status=200
  local prefix=$1 java=$2
  shift 2
  local start end
  start=$(date +%s%N)
  "$TIME" -f "%U %S" -o "$prefix.time" "$java" "$@" -cp "$CP" dev.retryagent.bench.startup.OkHttpStartup > "$prefix.out" 2> "$prefix.err" \
    || { cat "$prefix.out" "$prefix.err" >&2; exit 1; }
  end=$(date +%s%N)
  grep -q "status=200" "$prefix.out" || { echo "unexpected output:" >&2; cat "$prefix.out" "$prefix.err" >&2; exit 1; }
  echo "$(( (end - start) / 1000000 )) $(awk '{printf "%d", ($1 + $2) * 1000}' "$prefix.time")"
}

classes() { # classes <class+load log>: "app shared/total, all shared, agent-boot, agent-jar"
  awk -v jar="$AGENT_JAR" '
    / source: / {
      # the decorations ([0.1s][info][class,load]) are padded with spaces once a longer tag set has been logged
      line = $0; sub(/^(\[[^]]*\] *)+/, "", line); split(line, f, " ")
      name = f[1]; shared = ($0 ~ /source: shared objects file/)
      app = (name ~ /^(okhttp3|okio|kotlin)\./ || name ~ /^dev\.retryagent\.bench\./)
      if (app) { apps++; if (shared) appShared++ }
      if (shared) allShared++
      if ($0 ~ /__JVM_DefineClass__/ && name ~ /^dev\.retryagent\./) boot++
      if (index($0, "source: file:" jar) > 0) agentJar++
      all++
    }
    END { printf "app %d/%d from archive, %d of %d classes from archive, agent-boot %d, agent-jar %d", appShared, apps, allShared, all, boot, agentJar }' "$1"
}

median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

for JAVA in $JAVAS; do
  echo "== $("$JAVA" -version 2>&1 | head -1) ($JAVA); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  for kind in static dynamic; do
    jdk=$(basename "$(dirname "$(dirname "$(readlink -f "$(command -v "$JAVA")")")")")
    archive="$OUT/$jdk-$kind.jsa"
    if [ "$kind" = static ]; then
      run "$OUT/$jdk-$kind-train" "$JAVA" -Xshare:off -XX:DumpLoadedClassList="$OUT/$jdk-classes.lst" > /dev/null
      "$JAVA" -Xshare:dump -XX:SharedClassListFile="$OUT/$jdk-classes.lst" -XX:SharedArchiveFile="$archive" \
        -cp "$CP" > "$OUT/$jdk-dump.log" 2>&1 || { cat "$OUT/$jdk-dump.log" >&2; exit 1; }
    else
      run "$OUT/$jdk-$kind-train" "$JAVA" -XX:ArchiveClassesAtExit="$archive" > /dev/null
    fi
    [ -f "$archive" ] || { echo "no archive written: $archive" >&2; exit 1; }
    declare -A opts=([without]="-XX:SharedArchiveFile=$archive" [with]="$AGENT_OPT -XX:SharedArchiveFile=$archive")
    for mode in without with; do
      dir="$OUT/$jdk-$kind-$mode"
      mkdir -p "$dir"
      # shellcheck disable=SC2086
      run "$dir/log" "$JAVA" ${opts[$mode]} -Xlog:class+load=info > /dev/null
      warned=no
      grep -q "$WARNING" "$dir/log.err" "$dir/log.out" && warned=yes
      printf '  %-7s %-7s classes: %s; warning: %s\n' "$kind" "$mode" "$(classes "$dir/log.out")" "$warned"
      : > "$dir/wall.txt"; : > "$dir/cpu.txt"
    done
    for _ in $(seq "$RUNS"); do
      for mode in without with; do
        dir="$OUT/$jdk-$kind-$mode"
        # shellcheck disable=SC2086
        read -r wall cpu <<< "$(run "$dir/timed" "$JAVA" ${opts[$mode]})"
        echo "$wall" >> "$dir/wall.txt"; echo "$cpu" >> "$dir/cpu.txt"
        grep -q "$WARNING" "$dir/timed.err" && { echo "  warning printed in a timed $kind $mode run" >&2; }
      done
    done
    base="$OUT/$jdk-$kind"
    w0=$(median < "$base-without/wall.txt"); w1=$(median < "$base-with/wall.txt")
    c0=$(median < "$base-without/cpu.txt"); c1=$(median < "$base-with/cpu.txt")
    awk -v k="$kind" -v w0="$w0" -v w1="$w1" -v c0="$c0" -v c1="$c1" -v n="$RUNS" 'BEGIN {
      printf "  %-7s start-up (median of %d alternating runs): wall %.0f -> %.0f ms (%.2fx), cpu %.0f -> %.0f ms (%.2fx)\n",
        k, n, w0, w1, w1 / w0, c0, c1, c1 / c0 }'
  done
done
