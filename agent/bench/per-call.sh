#!/usr/bin/env bash
# Per-call cost of the agent on a warm keep-alive loopback connection, per client and mode.
#
# For each client (and style: sync/async, classic/async) it runs bench/PerCallApp in a fresh JVM without the agent and
# with -javaagent in each MODE, RUNS times, alternating (the order of the variants rotates from run to run), and takes
# the median over the runs of each run's median ns/call. Prints one line per client, style and mode:
#
#   PER-CALL client=okhttp-4.12 mode=sync-enforce without_ns=... with_ns=... overhead_ns=... overhead_pct=... \
#            without_cpu_ns=... with_cpu_ns=... cpu_overhead_pct=... without_alloc_b=... with_alloc_b=...
#
# (wall time per call, the CPU time of the process's Java threads per call, JIT and GC threads aside, and the bytes
# those threads allocate per call: on a loaded machine the CPU figure is far less disturbed by other processes than
# the wall time, and the bytes not at all.)
#   cd agent && bench/per-call.sh          # after `mvn -B verify -pl integration-tests -am -Dit.test=none ...`
#   RUNS=7 CLIENTS="huc:sync okhttp-4.12:async" MODES=enforce JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java bench/per-call.sh
#   BASELINE_JAR=/tmp/retry-agent-old.jar bench/per-call.sh   # also runs an older agent jar in the same alternation:
#                                                             # PER-CALL-BASELINE lines, to compare two builds fairly
#
# CLIENTS: LIBSET:STYLE words; LIBSET is a directory under LIBS (integration-tests/target/client-libs) or "huc" (the
# JDK's HttpURLConnection) or "jdk" (the JDK's java.net.http client, styles send and async). Each run: WARMUP_MS of calls, then ROUNDS rounds of CALLS calls. The machine's load
# (uptime) is printed first and last: figures from a shared machine are noisy, compare medians of alternating runs.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
WARMUP_MS=${WARMUP_MS:-3000}
ROUNDS=${ROUNDS:-5}
CALLS=${CALLS:-4000}
MODES=${MODES:-enforce observe}
CLIENTS=${CLIENTS:-okhttp-4.12:sync okhttp-4.12:async okhttp-5:sync okhttp-5:async httpclient5-5.6:classic httpclient5-5.6:async httpclient4-4.5.14:classic httpclient4-4.5.14:async huc:sync jdk:send jdk:async}
JAVA=${JAVA:-java}
JAVAC=${JAVAC:-javac}
JVM_OPTS=${JVM_OPTS:--Xms64m -Xmx256m}
AGENT_JAR=${AGENT_JAR:-target/retry-agent.jar}
AGENT_ARGS=${AGENT_ARGS:-}
BASELINE_JAR=${BASELINE_JAR:-}
LIBS=${LIBS:-../integration-tests/target/client-libs}

[ -f "$AGENT_JAR" ] || { echo "no agent jar at $AGENT_JAR: run mvn -B package first" >&2; exit 1; }
for set in okhttp-4.12 httpclient5-5.6 httpclient4-4.5.14; do
  [ -d "$LIBS/$set" ] || { echo "no client jars at $LIBS/$set: run mvn -B verify -pl integration-tests -am -Dit.test=none -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false" >&2; exit 1; }
done
jars() { ls "$LIBS/$1"/*.jar | tr '\n' ':'; }

OUT=target/bench-per-call
mkdir -p "$OUT/classes"
"$JAVAC" -nowarn -d "$OUT/classes" -cp "$(jars okhttp-4.12)$(jars httpclient5-5.6)$(jars httpclient4-4.5.14)" bench/PerCallApp.java

# one run: prints its median ns/call, Java threads' CPU ns/call and bytes/call; fails (with the app's output) if a call failed
run_ns() { # CP CLIENT STYLE [JVM ARGS...]
  local cp=$1 client=$2 style=$3; shift 3
  if ! "$JAVA" $JVM_OPTS "$@" -cp "$cp" PerCallApp "$client" "$style" "$WARMUP_MS" "$ROUNDS" "$CALLS" > "$OUT/last.out" 2> "$OUT/last.err"; then
    echo "run failed: $client $style $*" >&2; cat "$OUT/last.out" "$OUT/last.err" >&2; exit 1
  fi
  sed -n 's/^per-call ns=\([0-9]*\) .* thread_cpu_ns=\([0-9]*\) alloc_b=\([0-9]*\) .*/\1 \2 \3/p' "$OUT/last.out"
}
median() { cut -d' ' -f"${1:-1}" | sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%d\n", (a[NR/2]+a[NR/2+1])/2}'; }

echo "java: $("$JAVA" -version 2>&1 | head -1)"
echo "load: $(uptime)"
echo "runs: $RUNS per variant, alternating; each ${WARMUP_MS} ms warm-up, then $ROUNDS rounds of $CALLS calls (median)"
for spec in $CLIENTS; do
  set_name=${spec%%:*}; style=${spec#*:}
  if [ "$set_name" = huc ]; then
    client=huc; label=httpurlconnection; cp="$OUT/classes"
  elif [ "$set_name" = jdk ]; then
    client=jdkhttp; label=java.net.http; cp="$OUT/classes"
  else
    client=${set_name%%-*}; label=$set_name; cp="$OUT/classes:$(jars "$set_name")"
  fi
  variants=(without $MODES)
  if [ -n "$BASELINE_JAR" ]; then
    for m in $MODES; do variants+=("baseline-$m"); done
  fi
  for v in "${variants[@]}"; do : > "$OUT/$label-$style-$v.txt"; done
  for run in $(seq "$RUNS"); do
    n=${#variants[@]}
    for i in $(seq 0 $((n - 1))); do
      v=${variants[$(( (i + run) % n ))]}
      if [ "$v" = without ]; then
        run_ns "$cp" "$client" "$style" >> "$OUT/$label-$style-$v.txt"
      elif [ "${v#baseline-}" != "$v" ]; then
        args="mode=${v#baseline-}${AGENT_ARGS:+,$AGENT_ARGS}"
        run_ns "$cp" "$client" "$style" "-javaagent:$BASELINE_JAR=$args" >> "$OUT/$label-$style-$v.txt"
      else
        args="mode=$v${AGENT_ARGS:+,$AGENT_ARGS}"
        run_ns "$cp" "$client" "$style" "-javaagent:$AGENT_JAR=$args" >> "$OUT/$label-$style-$v.txt"
      fi
    done
  done
  without=$(median 1 < "$OUT/$label-$style-without.txt")
  without_cpu=$(median 2 < "$OUT/$label-$style-without.txt")
  without_alloc=$(median 3 < "$OUT/$label-$style-without.txt")
  for v in "${variants[@]:1}"; do
    with=$(median 1 < "$OUT/$label-$style-$v.txt")
    with_cpu=$(median 2 < "$OUT/$label-$style-$v.txt")
    with_alloc=$(median 3 < "$OUT/$label-$style-$v.txt")
    tag=PER-CALL; m=${v}
    if [ "${v#baseline-}" != "$v" ]; then tag=PER-CALL-BASELINE; m=${v#baseline-}; fi
    awk -v t="$tag" -v c="$label" -v m="$style-$m" -v a="$without" -v b="$with" -v ca="$without_cpu" -v cb="$with_cpu" -v ba="$without_alloc" -v bb="$with_alloc" \
      -v ra="$(cut -d' ' -f1 "$OUT/$label-$style-without.txt" | tr '\n' ' ')" -v rb="$(cut -d' ' -f1 "$OUT/$label-$style-$v.txt" | tr '\n' ' ')" \
      'BEGIN {printf "%s client=%s mode=%s without_ns=%d with_ns=%d overhead_ns=%d overhead_pct=%.1f without_cpu_ns=%d with_cpu_ns=%d cpu_overhead_pct=%.1f without_alloc_b=%d with_alloc_b=%d\n  runs (wall ns/call) %s %s without: %s| with: %s\n", t, c, m, a, b, b - a, (b - a) * 100.0 / a, ca, cb, (ca > 0 ? (cb - ca) * 100.0 / ca : 0), ba, bb, c, m, ra, rb}'
  done
done
echo "load: $(uptime)"
