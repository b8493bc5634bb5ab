#!/usr/bin/env bash
# Per-call cost of the agent on a warm keep-alive loopback connection, per client, style and path.
#
# For each client (and style: sync/async, classic/async) it runs bench/PerCallApp in a fresh JVM without the agent and
# with -javaagent, RUNS times, alternating (the order of the variants rotates from run to run). One JVM runs every
# path in turn, so each figure is the median over the runs of each run's median ns/call for that path. Paths:
#
#   get          GET /items/42, 200 at once
#   get-once     GET /once/items/42, under a rule maxAttempts: 1
#   get-observe  GET /observe/items/42, under a rule mode: observe
#   get-off      GET /off/items/42, under a rule mode: off
#   get-nested   GET /nested/items/42 that already carries the marker (Retry-Attempt: 1): sent once, as it is
#   get-bounded  GET /bounded/items/42, under a rule attemptTimeout: 2s (each attempt's timeouts bounded, then restored)
#   post         POST /post/items, a small buffered body, no Idempotency-Key (the built-in policy does not retry it)
#   post-key     POST /post-key/items with Idempotency-Key (retryable)
#   put          PUT /put/items/42, a small buffered body
#   post-stream  POST /stream/items, a body the client cannot send twice (HttpURLConnection fixed-length streaming,
#                OkHttp isOneShot, HttpClient 5/4 a non-repeatable entity or producer, java.net.http ofInputStream,
#                Reactor Netty a unicast sink's publisher)
#   https        GET /items/42 over TLS to a second loopback server (a self-signed key made here with keytool,
#                trusted through javax.net.ssl.trustStore in both variants)
#   redirect     GET /redirect/items/42, answered 302 Location /items/42, followed
#
# The agent variant runs with one policy file, written here, whose rules select by path (/once/**, /observe/**,
# /off/**, /bounded/**); every other path runs under the built-in defaults. The app fails on a wrong answer and when its servers
# did not see exactly one request per call of each path (two for a redirect), so a path that resends silently fails.
# Prints one line per client, style and path:
#
#   PER-CALL client=okhttp-4.12 style=sync path=get without_ns=... with_ns=... overhead_ns=... overhead_pct=... \
#            without_cpu_ns=... with_cpu_ns=... cpu_overhead_pct=... without_alloc_b=... with_alloc_b=... \
#            without_jit_ms=... with_jit_ms=...
#
# (wall time per call, the CPU time of the process's Java threads per call, JIT and GC threads aside, and the bytes
# those threads allocate per call: on a loaded machine the CPU figure is far less disturbed by other processes than
# the wall time, and the bytes not at all; the JIT compiler's time during the path's rounds, which is not 0 where the
# JVM had not settled when the path was measured), a warm-up line per client, style and variant and one in all,
# PER-CALL-SKIPPED lines for a path a style cannot take (with the reason),
# and a PER-CALL-FAILED line for a client and style whose app failed (its output goes to stderr; the other clients
# still run, and the script exits non-zero at the end).
#   cd agent && bench/per-call.sh          # after `mvn -B verify -pl integration-tests -am -Dit.test=none ...`
#   RUNS=7 CLIENTS="huc:sync okhttp-4.12:async" PATHS=get,post JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java bench/per-call.sh
#   BASELINE_JAR=/tmp/retry-agent-old.jar bench/per-call.sh   # also runs an older agent jar in the same alternation
#                                                             # (same policy): PER-CALL-BASELINE lines, to compare
#                                                             # two builds fairly
#   OTEL_AGENT=../integration-tests/target/client-libs/otel-agent/opentelemetry-javaagent-2.22.0.jar bench/per-call.sh
#                          # every variant beside the OpenTelemetry Java agent (its -javaagent first, spans recorded
#                          # and dropped: exporters none); the lines say beside=opentelemetry
#
# CLIENTS: LIBSET:STYLE words; LIBSET is a directory under LIBS (integration-tests/target/client-libs) or "huc" (the
# JDK's HttpURLConnection) or "jdk" (the JDK's java.net.http client, styles send and async); the client is the set's
# name without its last dash-separated word (okhttp-4.12: okhttp, reactor-netty-1.2: reactor-netty).
# PATHS: comma-separated path names, or all. Each JVM: calls over every path in turn for WARMUP_MS and on until the JIT compiler is idle
# (at most WARMUP_MAX_MS), then per path PATH_WARMUP_MS of calls and ROUNDS rounds of ROUND_MS each (rounds are
# timed, not counted: the clients' calls take 30 us to 1 ms). The paths are measured in turn, starting one run at
# the first path, the next further on, so that no path is always the one measured first. The machine's load
# (uptime) is printed first and last: figures from a shared machine are noisy, compare medians of alternating runs.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
WARMUP_MS=${WARMUP_MS:-2000}
WARMUP_MAX_MS=${WARMUP_MAX_MS:-12000}
PATH_WARMUP_MS=${PATH_WARMUP_MS:-200}
ROUNDS=${ROUNDS:-5}
ROUND_MS=${ROUND_MS:-100}
ALL_PATHS=get,get-once,get-observe,get-off,get-nested,get-bounded,post,post-key,put,post-stream,https,redirect
PATHS=${PATHS:-all}
[ "$PATHS" != all ] || PATHS=$ALL_PATHS
IFS=, read -r -a PATH_LIST <<< "$PATHS"
CLIENTS=${CLIENTS:-okhttp-4.12:sync okhttp-4.12:async okhttp-5:sync okhttp-5:async httpclient5-5.6:classic httpclient5-5.6:async httpclient4-4.5.14:classic httpclient4-4.5.14:async reactor-netty-1.2:sync reactor-netty-1.2:async huc:sync jdk:send jdk:async}
JAVA=${JAVA:-java}
JAVAC=${JAVAC:-javac}
KEYTOOL=${KEYTOOL:-$(dirname "$(command -v "$JAVA")")/keytool}
JVM_OPTS=${JVM_OPTS:--Xms64m -Xmx256m}
AGENT_JAR=${AGENT_JAR:-target/retry-agent.jar}
AGENT_ARGS=${AGENT_ARGS:-}
BASELINE_JAR=${BASELINE_JAR:-}
LIBS=${LIBS:-../integration-tests/target/client-libs}
OTEL_AGENT=${OTEL_AGENT:-}
OTEL_OPTS=()
BESIDE=""
if [ -n "$OTEL_AGENT" ]; then
  [ -f "$OTEL_AGENT" ] || { echo "no OpenTelemetry agent at $OTEL_AGENT" >&2; exit 1; }
  OTEL_OPTS=("-javaagent:$OTEL_AGENT" -Dotel.traces.exporter=none -Dotel.metrics.exporter=none -Dotel.logs.exporter=none)
  BESIDE=" beside=opentelemetry"
fi

[ -f "$AGENT_JAR" ] || { echo "no agent jar at $AGENT_JAR: run mvn -B package first" >&2; exit 1; }
for set in okhttp-4.12 httpclient5-5.6 httpclient4-4.5.14 reactor-netty-1.2; do
  [ -d "$LIBS/$set" ] || { echo "no client jars at $LIBS/$set: run mvn -B verify -pl integration-tests -am -Dit.test=none -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false" >&2; exit 1; }
done
jars() { ls "$LIBS/$1"/*.jar | tr '\n' ':'; }

OUT=$PWD/target/bench-per-call
mkdir -p "$OUT/classes"
"$JAVAC" -nowarn -d "$OUT/classes" -cp "$(jars okhttp-4.12)$(jars httpclient5-5.6)$(jars httpclient4-4.5.14)$(jars reactor-netty-1.2)" bench/PerCallApp.java

# the rules that give get-once, get-observe and get-off their paths; the other paths run under the built-in defaults
POLICY=$OUT/policy.yaml
cat > "$POLICY" <<'EOF'
version: 1
rules:
  - match: { path: "/once/**" }
    maxAttempts: 1
  - match: { path: "/observe/**" }
    mode: observe
  - match: { path: "/off/**" }
    mode: off
  - match: { path: "/bounded/**" }
    attemptTimeout: 2s
EOF

# the https path's key (the app's TLS server) and trust store (every client, through the JDK's default trust
# manager), handed to both variants alike; without keytool the app skips the path
[ -x "$KEYTOOL" ] || KEYTOOL=keytool
if [ ! -s "$OUT/tls/trust.p12" ] && command -v "$KEYTOOL" > /dev/null; then
  rm -rf "$OUT/tls"; mkdir -p "$OUT/tls"
  { "$KEYTOOL" -genkeypair -alias per-call -keyalg RSA -keysize 2048 -dname CN=127.0.0.1 -ext san=ip:127.0.0.1 -validity 3650 \
      -storetype PKCS12 -keystore "$OUT/tls/server.p12" -storepass changeit -keypass changeit \
    && "$KEYTOOL" -exportcert -rfc -alias per-call -keystore "$OUT/tls/server.p12" -storepass changeit -file "$OUT/tls/cert.pem" \
    && "$KEYTOOL" -importcert -noprompt -alias per-call -file "$OUT/tls/cert.pem" -storetype PKCS12 \
      -keystore "$OUT/tls/trust.p12.tmp" -storepass changeit; } > "$OUT/tls/keytool.log" 2>&1 \
    || { cat "$OUT/tls/keytool.log" >&2; exit 1; }
  mv "$OUT/tls/trust.p12.tmp" "$OUT/tls/trust.p12"
fi
TLS_OPTS=""
if [ -s "$OUT/tls/trust.p12" ]; then
  TLS_OPTS="-Dpercall.tls.keystore=$OUT/tls/server.p12 -Dpercall.tls.password=changeit -Djavax.net.ssl.trustStore=$OUT/tls/trust.p12 -Djavax.net.ssl.trustStorePassword=changeit"
fi

# one run: prints "path ns cpu alloc jit" per measured path, its skipped paths to $OUT/skipped.txt, its warm-up
# ("ms settled") to $OUT/warmup-VARIANT.txt; fails (the app's output in $OUT/last.out) if a call failed or a server
# count did not match
run_paths() { # VARIANT PATHS CP CLIENT STYLE [JVM ARGS...]
  local variant=$1 paths=$2 cp=$3 client=$4 style=$5; shift 5
  "$JAVA" $JVM_OPTS $TLS_OPTS "$@" -cp "$cp" PerCallApp "$client" "$style" "$WARMUP_MS" "$WARMUP_MAX_MS" "$PATH_WARMUP_MS" "$ROUNDS" "$ROUND_MS" "$paths" \
    > "$OUT/last.out" 2> "$OUT/last.err" || return 1
  sed -n 's/^per-call path=\([^ ]*\) skipped=\(.*\)/\1 \2/p' "$OUT/last.out" >> "$OUT/skipped.txt"
  sed -n 's/^per-call warmup_ms=\([0-9]*\) jit_settled=\([a-z]*\).*/\1 \2/p' "$OUT/last.out" >> "$OUT/warmup-$variant.txt"
  sed -n 's/^per-call path=\([^ ]*\) ns=\([0-9]*\) .* thread_cpu_ns=\([0-9]*\) alloc_b=\([0-9]*\) .* jit_ms=\([0-9-]*\).*/\1 \2 \3 \4 \5/p' "$OUT/last.out"
}
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%d\n", (a[NR/2]+a[NR/2+1])/2}'; }
# the medians over the runs in file $1 of path $2's wall ns, CPU ns, bytes and JIT ms per run
path_medians() { local c; for c in 2 3 4 5; do awk -v p="$2" -v c="$c" '$1 == p {print $c}' "$1" | median; done | tr '\n' ' '; }

echo "java: $("$JAVA" -version 2>&1 | head -1)"
echo "load: $(uptime)"
[ -z "$OTEL_AGENT" ] || echo "every variant beside the OpenTelemetry agent: ${OTEL_OPTS[*]}"
echo "runs: $RUNS per variant, alternating; each JVM: ${WARMUP_MS} ms warm-up over every path and on until the JIT compiler is idle (at most ${WARMUP_MAX_MS} ms), then per path ${PATH_WARMUP_MS} ms warm-up and $ROUNDS rounds of ${ROUND_MS} ms (median); paths: $PATHS"
echo "policy of the agent variant${BASELINE_JAR:+ and the baseline}: $POLICY${AGENT_ARGS:+ (agent arguments also: $AGENT_ARGS)}"
[ -n "$TLS_OPTS" ] || echo "no keytool at $KEYTOOL: the https path is skipped"
failed=0
: > "$OUT/warmup-all.txt"
for spec in $CLIENTS; do
  set_name=${spec%%:*}; style=${spec#*:}
  if [ "$set_name" = huc ]; then
    client=huc; label=httpurlconnection; cp="$OUT/classes"
  elif [ "$set_name" = jdk ]; then
    client=jdkhttp; label=java.net.http; cp="$OUT/classes"
  else
    client=${set_name%-*}; label=$set_name; cp="$OUT/classes:$(jars "$set_name")"
  fi
  variants=(without with)
  [ -z "$BASELINE_JAR" ] || variants+=(baseline)
  for v in "${variants[@]}"; do : > "$OUT/$label-$style-$v.txt"; : > "$OUT/warmup-$v.txt"; done
  : > "$OUT/skipped.txt"
  error=""
  for run in $(seq "$RUNS"); do
    shift_by=$(( (run - 1) * ${#PATH_LIST[@]} / RUNS ))
    order=$(IFS=,; echo "${PATH_LIST[*]:shift_by},${PATH_LIST[*]:0:shift_by}" | sed 's/,$//')
    n=${#variants[@]}
    for i in $(seq 0 $((n - 1))); do
      v=${variants[$(( (i + run) % n ))]}
      case $v in
        without) args=(${OTEL_OPTS[@]+"${OTEL_OPTS[@]}"}) ;;
        with) args=(${OTEL_OPTS[@]+"${OTEL_OPTS[@]}"} "-javaagent:$AGENT_JAR=policy=$POLICY${AGENT_ARGS:+,$AGENT_ARGS}") ;;
        baseline) args=(${OTEL_OPTS[@]+"${OTEL_OPTS[@]}"} "-javaagent:$BASELINE_JAR=policy=$POLICY${AGENT_ARGS:+,$AGENT_ARGS}") ;;
      esac
      if ! run_paths "$v" "$order" "$cp" "$client" "$style" "${args[@]}" >> "$OUT/$label-$style-$v.txt"; then
        echo "run failed: $label $style $v (run $run)" >&2; cat "$OUT/last.out" "$OUT/last.err" >&2
        error="$v run $run: $(grep -m1 '^failed' "$OUT/last.out" || tail -1 "$OUT/last.err" || true)"
        break 2
      fi
    done
  done
  if [ -n "$error" ]; then
    echo "PER-CALL-FAILED client=$label style=$style reason=$error"
    failed=1
    continue
  fi
  sort -u "$OUT/skipped.txt" | while read -r path reason; do
    echo "PER-CALL-SKIPPED client=$label style=$style path=$path reason=$reason"
  done
  for v in "${variants[@]}"; do
    cat "$OUT/warmup-$v.txt" >> "$OUT/warmup-all.txt"
    awk -v c="$label" -v s="$style" -v v="$v" '{ms = ms " " $1; if ($2 == "true") idle++} END {printf "  warm-up (ms) %s %s %s:%s, the JIT idle in %d of %d\n", c, s, v, ms, idle, NR}' "$OUT/warmup-$v.txt"
  done
  for path in "${PATH_LIST[@]}"; do
    grep -q "^$path " "$OUT/$label-$style-without.txt" || continue
    read -r without without_cpu without_alloc without_jit <<< "$(path_medians "$OUT/$label-$style-without.txt" "$path")"
    for v in "${variants[@]:1}"; do
      f=$OUT/$label-$style-$v.txt
      read -r with with_cpu with_alloc with_jit <<< "$(path_medians "$f" "$path")"
      tag=PER-CALL
      [ "$v" = with ] || tag=PER-CALL-BASELINE
      awk -v t="$tag$BESIDE" -v c="$label" -v s="$style" -v p="$path" -v a="$without" -v b="$with" -v ca="$without_cpu" -v cb="$with_cpu" -v ba="$without_alloc" -v bb="$with_alloc" \
        -v ja="$without_jit" -v jb="$with_jit" \
        -v ra="$(awk -v p="$path" '$1 == p {printf "%s ", $2}' "$OUT/$label-$style-without.txt")" -v rb="$(awk -v p="$path" '$1 == p {printf "%s ", $2}' "$f")" \
        'BEGIN {printf "%s client=%s style=%s path=%s without_ns=%d with_ns=%d overhead_ns=%d overhead_pct=%.1f without_cpu_ns=%d with_cpu_ns=%d cpu_overhead_pct=%.1f without_alloc_b=%d with_alloc_b=%d without_jit_ms=%d with_jit_ms=%d\n  runs (wall ns/call) %s %s %s without: %s| with: %s\n", t, c, s, p, a, b, b - a, (b - a) * 100.0 / a, ca, cb, (ca > 0 ? (cb - ca) * 100.0 / ca : 0), ba, bb, ja, jb, c, s, p, ra, rb}'
    done
  done
done
if [ -s "$OUT/warmup-all.txt" ]; then
  echo "warm-up: $(wc -l < "$OUT/warmup-all.txt") JVMs, the JIT compiler idle before ${WARMUP_MAX_MS} ms in $(grep -c ' true$' "$OUT/warmup-all.txt" || true);" \
    "median warm-up $(cut -d' ' -f1 "$OUT/warmup-all.txt" | median) ms, longest $(cut -d' ' -f1 "$OUT/warmup-all.txt" | sort -n | tail -1) ms"
fi
echo "load: $(uptime)"
exit "$failed"
