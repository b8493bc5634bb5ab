package dev.retryagent.it.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.RawServer;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.Runs;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import dev.retryagent.it.harness.TlsMaterial;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Faults (docs/reference.md#classification, #deadline, #what-the-caller-sees), every client kind (OkHttp sync and
 * async, HttpClient 5 classic and async, HttpURLConnection) against each fault on its own loopback server, in one
 * forked JVM:
 * <ul>
 *   <li>connection refused, a connection closed before the status line, an answer held past the read timeout:
 *       retryable, retried to {@code maxAttempts}, then the client's own failure;</li>
 *   <li>a reset in the middle of the body, half a status line: the client's own result, retried or not as the
 *       client reports it (a body read after the call returned is the application's, not an attempt's; the JDK
 *       reads {@code HTTP/1.1 50} and an end of stream as status 50);</li>
 *   <li>a body that trickles in: the full body, one request;</li>
 *   <li>a TLS handshake with a certificate the client does not trust, an unknown host (a name under
 *       {@code .invalid}, resolved from a hosts file of the forked JVM's own, so no lookup leaves the machine): not
 *       retryable, back at once.</li>
 * </ul>
 * None hangs past its deadline plus one attempt, and no connection is left in use.
 */
@Timeout(300)
class FaultsIT {
    static final int MAX_ATTEMPTS = 3;
    static final long DEADLINE_MS = 4000;
    /** The deadline plus one attempt (the read timeout), plus a margin for a loaded machine. */
    static final long NO_HANG_MS = DEADLINE_MS + FaultsApp.READ_TIMEOUT_MS + 3000;
    static final String POLICY = """
            version: 1
            defaults:
              maxAttempts: %d
              backoff: { base: 10ms, cap: 20ms }
              deadline: %dms
              budget: { ratio: 1.0, minPerSecond: 1000 }
            """.formatted(MAX_ATTEMPTS, DEADLINE_MS);

    @Test
    void everyFaultEndsAsThePolicyAndTheClientSay() throws Exception {
        List<AutoCloseable> closer = new ArrayList<>();
        try {
            Map<String, ScriptedServer> drop = new LinkedHashMap<>();
            Map<String, ScriptedServer> midBody = new LinkedHashMap<>();
            Map<String, ScriptedServer> slow = new LinkedHashMap<>();
            Map<String, ScriptedServer> untrusted = new LinkedHashMap<>();
            Map<String, RawServer> partial = new LinkedHashMap<>();
            Map<String, RawServer> trickle = new LinkedHashMap<>();
            TlsMaterial stranger = TlsMaterial.generate(Files.createTempDirectory(ForkedApp.workRoot(), "tls-untrusted-"));
            List<String> args = new ArrayList<>();
            for (String kind : FaultsApp.KINDS) {
                drop.put(kind, Runs.open(closer, Step.dropAfterRequest()));
                midBody.put(kind, Runs.open(closer, Step.ok().body("0123456789".repeat(100)).cutAfter(100).resetMidBody()));
                slow.put(kind, Runs.open(closer, Step.ok().body("late").delay(Duration.ofMillis(FaultsApp.READ_TIMEOUT_MS * 4L))));
                ScriptedServer tls = ScriptedServer.startTls(stranger, Step.ok());
                closer.add(tls);
                untrusted.put(kind, tls);
                partial.put(kind, add(closer, new RawServer(RawServer.Fault.PARTIAL_STATUS)));
                trickle.put(kind, add(closer, new RawServer(RawServer.Fault.TRICKLE)));
                args.add("drop-" + kind + "=" + kind + "=" + drop.get(kind).url("/drop"));
                args.add("midBody-" + kind + "=" + kind + "=" + midBody.get(kind).url("/mid-body"));
                args.add("slow-" + kind + "=" + kind + "=" + slow.get(kind).url("/slow"));
                args.add("partial-" + kind + "=" + kind + "=" + partial.get(kind).url("/partial"));
                args.add("trickle-" + kind + "=" + kind + "=" + trickle.get(kind).url("/trickle"));
                args.add("tls-" + kind + "=" + kind + "=" + untrusted.get(kind).url("/tls/" + kind));
                args.add("unknown-" + kind + "=" + kind + "=http://nowhere.invalid:9/unknown/" + kind);
            }
            // After every server is up: a port found free earlier could have been given to one of them since.
            for (String kind : FaultsApp.KINDS) {
                args.add("refused-" + kind + "=" + kind + "=http://127.0.0.1:" + ScriptedServer.refusingPort()
                        + "/refused/" + kind);
            }
            Path hosts = Files.writeString(Files.createTempFile(ForkedApp.workRoot(), "hosts-", ".txt"),
                    "127.0.0.1 localhost\n");
            ForkedApp app = ForkedApp.of(FaultsApp.class).name("faults").clientLibs(ClientLibs.OKHTTP_5)
                    .classpath(ForkedApp.testClasses()).policy(POLICY).agentArg("log", "debug")
                    .sysProp("jdk.net.hosts.file", hosts.toString()).timeout(Duration.ofMinutes(4)).args(args);
            ClientLibs.HTTPCLIENT5_NEWEST.jars().forEach(app::classpath);
            ForkedApp.Result run = app.run().assertExitCode(0);
            run.lines("RESULT").forEach(l -> System.out.println("FAULT " + l));
            for (String kind : FaultsApp.KINDS) {
                System.out.println("FAULT-REQUESTS kind=" + kind + " drop=" + drop.get(kind).requestCount()
                        + " midBody=" + midBody.get(kind).requestCount() + " slow=" + slow.get(kind).requestCount()
                        + " partial=" + partial.get(kind).requests() + " trickle=" + trickle.get(kind).requests()
                        + " tlsConnections=" + untrusted.get(kind).connectionsAccepted());
            }
            System.out.println("FAULT " + run.single("POOL"));

            for (String kind : FaultsApp.KINDS) {
                // Retryable: every attempt made, then the client's own failure.
                ReportLine refused = failed(run, "refused-" + kind);
                assertEquals(MAX_ATTEMPTS, retriesLogged(run, "/refused/" + kind) + 1, run.describe());
                assertTrue(refused.get("failure").contains("Connect"), refused.toString());
                failed(run, "drop-" + kind);
                assertEquals(MAX_ATTEMPTS, drop.get(kind).requestCount(), kind + " drop");
                failed(run, "slow-" + kind);
                assertEquals(MAX_ATTEMPTS, slow.get(kind).requestCount(), kind + " read timeout");

                // The client's own failure; an attempt that failed inside the call is retried, a body read after it
                // returned is the application's.
                ReportLine mid = Runs.result(run, "midBody-" + kind);
                int midRequests = midBody.get(kind).requestCount();
                assertTrue(mid.has("failure") && (midRequests == 1 || midRequests == MAX_ATTEMPTS),
                        kind + " mid-body: " + mid + " requests=" + midRequests);
                ReportLine half = Runs.result(run, "partial-" + kind);
                int halfRequests = partial.get(kind).requests();
                if (kind.equals("jdk")) {
                    // The JDK alone reads "HTTP/1.1 50" and an end of stream as status 50: its own result, once.
                    assertEquals(50, half.getInt("status"), half.toString());
                    assertEquals(1, halfRequests, "jdk partial status line");
                } else {
                    assertTrue(half.has("failure") && (halfRequests == 1 || halfRequests == MAX_ATTEMPTS),
                            kind + " partial status line: " + half + " requests=" + halfRequests);
                }

                // A slow body is a body.
                ReportLine slowBody = Runs.result(run, "trickle-" + kind);
                assertEquals(200, slowBody.getInt("status"), slowBody.toString());
                assertEquals(RawServer.TRICKLE_BYTES, slowBody.getInt("bytes"), slowBody.toString());
                assertEquals(1, trickle.get(kind).requests(), kind + " trickle");

                // Not retryable: back at once.
                ReportLine tls = failed(run, "tls-" + kind);
                assertTrue(tls.get("failure").contains("SSL"), tls.toString());
                assertEquals(1, untrusted.get(kind).connectionsAccepted(), kind + " TLS handshake: one connection");
                assertEquals(0, untrusted.get(kind).requestCount());
                ReportLine unknown = failed(run, "unknown-" + kind);
                assertTrue(unknown.get("failure").contains("UnknownHost"), unknown.toString());
                assertEquals(0, retriesLogged(run, "/unknown/" + kind), run.describe());
                assertEquals(0, retriesLogged(run, "/tls/" + kind), run.describe());
            }
            for (ReportLine result : run.lines("RESULT")) {
                assertTrue(result.getLong("elapsedMs") < NO_HANG_MS, "no call past its deadline plus one attempt: " + result);
            }
            ReportLine pool = run.single("POOL");
            assertEquals(0, pool.getInt("okhttpInUse"), pool.toString());
            assertEquals(0, pool.getInt("classicLeased"), pool.toString());
            assertEquals(0, pool.getInt("asyncLeased"), pool.toString());
            assertFalse(run.stderr().contains("internal-error"), run.describe());
        } finally {
            for (AutoCloseable c : closer) {
                c.close();
            }
        }
    }

    private static ReportLine failed(ForkedApp.Result run, String id) {
        ReportLine line = Runs.result(run, id);
        assertTrue(line.has("failure"), "the client's own failure: " + line + "\n" + run.describe());
        return line;
    }

    /** The agent's {@code retry} lines for the calls to {@code path} (each kind's calls have a path of their own). */
    private static long retriesLogged(ForkedApp.Result run, String path) {
        return run.agentLog().stream().filter(l -> l.contains(" retry ") && l.contains("path=" + path + " ")).count();
    }

    private static <T extends AutoCloseable> T add(List<AutoCloseable> closer, T closeable) {
        closer.add(closeable);
        return closeable;
    }
}
