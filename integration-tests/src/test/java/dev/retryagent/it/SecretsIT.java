package dev.retryagent.it;

import static dev.retryagent.it.harness.Runs.logged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.retryagent.it.harness.Jdks;
import org.junit.jupiter.api.Tag;

import dev.retryagent.it.apps.SecretsApp;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/reference.md#what-it-reports: no secret reaches the agent's output. {@link SecretsApp} sends an {@code
 * Authorization} and a {@code Cookie} header, an API key header, API keys in the query string, user info in the URL, an
 * idempotency key and a body, each a distinct {@code s3cr3t-KIND-TAG} string with a random tag, through OkHttp (sync
 * and async), HttpClient 5 (classic and async) and HttpURLConnection, at {@code log=debug}, through retries and every
 * give-up reason it can provoke (attempts, not-idempotent, body-not-replayable, retry-after-too-long, budget, deadline,
 * nested), connection resets and refusals, and an internal error forced by a request body whose first
 * {@code isOneShot()} / entity whose first {@code isRepeatable()} (the agent's question) throws an exception whose
 * message is a secret; and once in observe mode ({@code would retry} lines). Then it prints every MBean of the {@code
 * retry-agent} domain with every attribute. No line on the JVM's stdout or stderr holds the tag.
 */
@Tag(Jdks.MATRIX)
class SecretsIT {
    private static final String POLICY = """
            version: 1
            defaults:
              maxAttempts: 3
              backoff: { base: 10ms, cap: 20ms }
              retryAfter: { honor: true, max: 1s }
            rules:
              - match: { path: "/budget/**" }
                budget: { ratio: 0, minPerSecond: 0 }
              - match: { path: "/deadline/**" }
                backoff: { base: 2s, cap: 2s, jitter: none }
                deadline: 500ms
            """;

    private static final List<String> CLIENTS = List.of("okhttp-sync", "okhttp-async", "hc5-classic", "hc5-async",
            "huc");

    static Stream<Arguments> jvms() {
        return Stream.of(Arguments.of(ClientLibs.OKHTTP_4, ClientLibs.HTTPCLIENT5_OLDEST, false, "enforce"),
                Arguments.of(ClientLibs.OKHTTP_5, ClientLibs.HTTPCLIENT5_NEWEST, true, "enforce"),
                Arguments.of(ClientLibs.OKHTTP_5, ClientLibs.HTTPCLIENT5_NEWEST, false, "observe"));
    }

    @ParameterizedTest(name = "{0} {1} java25={2} mode={3}")
    @MethodSource("jvms")
    @Timeout(180)
    void noSecretInAnyLogLineOrMBean(ClientLibs okhttp, ClientLibs httpclient5, boolean java25, String mode)
            throws Exception {
        String tag = UUID.randomUUID().toString().replace("-", "");
        try (ScriptedServer busy = ScriptedServer.start(Step.status(503).body("busy"));
             ScriptedServer retryAfter = ScriptedServer.start(Step.status(503).retryAfterSeconds(100));
             ScriptedServer drop = ScriptedServer.start(Step.dropAfterRequest())) {
            int refused = ScriptedServer.refusingPort();
            ForkedApp app = ForkedApp.of(SecretsApp.class).name("secrets-" + mode + "-" + okhttp + "-" + httpclient5)
                    .java(java25 ? java25() : ForkedApp.defaultJava())
                    .policy(POLICY).agentArg("log", "debug").agentArg("mode", mode)
                    .args("--tag", tag, "--busy", busy.url(""), "--retry-after", retryAfter.url(""),
                            "--drop", drop.url(""), "--refused", "http://127.0.0.1:" + refused);
            if (mode.equals("observe")) {
                app.args("--hc5-noretries"); // observe leaves HttpClient 5's own retries on: 100 s of Retry-After
            }
            okhttp.jars().forEach(app::classpath);
            httpclient5.jars().forEach(app::classpath);
            ForkedApp.Result run = app.run().assertExitCode(0);

            // the secrets went out: the requests carried them
            RecordedRequest seen = busy.requests().stream().filter(r -> r.target().startsWith("/postKey/okhttp-sync"))
                    .findFirst().orElseThrow();
            assertEquals("Bearer s3cr3t-AUTH-" + tag, seen.header("Authorization"));
            assertEquals("session=s3cr3t-COOKIE-" + tag, seen.header("Cookie"));
            assertEquals("s3cr3t-IDEMKEY-" + tag, seen.header("Idempotency-Key"));
            assertTrue(seen.target().contains("api_key=s3cr3t-APIKEY-" + tag), seen.target());
            assertTrue(seen.bodyUtf8().contains("s3cr3t-BODY-" + tag), seen.bodyUtf8());

            // every path the log can take was taken, for every client that has it
            for (String client : mode.equals("observe") ? List.<String>of() : CLIENTS) {
                String name = client.startsWith("okhttp") ? "okhttp"
                        : client.startsWith("hc5") ? "apache-httpclient5" : "httpurlconnection";
                assertTrue(logged(run, "retry client=" + name, "path=/attempts/" + client + " "), run.describe());
                assertTrue(logged(run, "give up", "path=/attempts/" + client + " ", "reason=attempts"), client);
                assertTrue(logged(run, "give up", "path=/postNoKey/" + client + " ", "reason=not-idempotent"), client);
                assertTrue(logged(run, "give up", "path=/postKey/" + client + " ", "reason=attempts"), client);
                assertTrue(logged(run, "give up", "path=/retryAfter/" + client + " ", "reason=retry-after-too-long"),
                        client);
                assertTrue(logged(run, "give up", "path=/budget/" + client + " ", "reason=budget"), client);
                assertTrue(logged(run, "give up", "path=/deadline/" + client + " ", "reason=deadline"), client);
                assertTrue(logged(run, "give up", "path=/nested/" + client + " ", "reason=nested"), client);
                assertTrue(logged(run, "path=/reset/" + client + " ", "cause=failure:reset"), client);
                assertTrue(logged(run, "path=/refused/" + client + " ", "cause=failure:connect"), client);
                if (!client.startsWith("hc5")) {
                    // HttpClient 5 refuses a URI with user info itself (ProtocolException), before the agent sees it
                    assertTrue(logged(run, "retry", "path=/userinfo/" + client + " "), client);
                }
                if (!client.equals("hc5-async")) {
                    assertTrue(logged(run, "give up", "path=/nonReplayable/" + client + " ", "reason=body-not-replayable"),
                            client);
                }
            }
            for (String client : mode.equals("observe") ? CLIENTS : List.<String>of()) {
                assertTrue(logged(run, "would retry", "path=/attempts/" + client + " "), run.describe());
                assertTrue(logged(run, "give up", "path=/postNoKey/" + client + " ", "reason=not-idempotent"), client);
            }
            assertTrue(logged(run, "internal-error where=okhttp.interceptor"), run.describe());
            assertTrue(logged(run, "internal-error where=apache-httpclient5.classic"), run.describe());
            for (String client : List.of("okhttp-sync", "hc5-classic")) {
                // fail open: the call whose facts could not be read goes through once, without retries
                assertEquals(503, result(run, client + "-internalError").getInt("status"), run.describe());
                assertEquals(1, busy.requests().stream()
                        .filter(r -> r.target().startsWith("/internalError/" + client + "?")).count(), client);
            }

            // the MBeans were read, and they count what happened: the agent's, the total and one per client and
            // destination (the busy, Retry-After, dropping and refusing servers; HttpClient 5 has no async
            // non-replayable call)
            int mbeans = run.single("MBEANS").getInt("count");
            assertEquals(2 + 3 * 4, mbeans, run.describe());
            String counter = mode.equals("observe") ? "would_retry" : "retries";
            assertTrue(run.lines("MBEAN").stream().anyMatch(l -> l.has(counter) && l.getInt(counter) > 0),
                    run.describe());

            // no line of the JVM's output holds any of the secrets
            List<String> leaks = new ArrayList<>();
            int lines = 0;
            for (List<String> stream : List.of(run.stdoutLines(), run.stderrLines())) {
                for (String line : stream) {
                    lines++;
                    if (line.contains(tag) || line.contains("s3cr3t")) {
                        leaks.add(line);
                    }
                }
            }
            System.out.printf("SECRETS okhttp=%s httpclient5=%s java25=%s mode=%s lines=%d agentLines=%d mbeans=%d "
                            + "leaks=%d%n", okhttp.version(), httpclient5.version(), java25, mode, lines, run.agentLog().size(), mbeans, leaks.size());
            assertEquals(List.of(), leaks, "lines with a secret");
        }
    }

    private static ReportLine result(ForkedApp.Result run, String id) {
        return run.results().stream().filter(l -> id.equals(l.get("id"))).findFirst()
                .orElseThrow(() -> new AssertionError("no RESULT for " + id + "\n" + run.describe()));
    }

    private static Path java25() {
        Path java = Paths.get(System.getProperty("retry.agent.it.java25", "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"));
        if (!Files.isExecutable(java)) {
            throw new AssertionError("no Java 25 at " + java + " (set -Dretry.agent.it.java25=...)");
        }
        return java;
    }
}
