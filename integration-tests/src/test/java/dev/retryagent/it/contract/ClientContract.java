package dev.retryagent.it.contract;

import static dev.retryagent.it.harness.Runs.logged;
import static dev.retryagent.it.harness.Runs.markers;
import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.RetryAfterDates;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What every instrumented client does under the agent (docs/reference.md#semantics), written once: one policy, one set
 * of scripted servers, one set of assertions. A client takes part through a driver, a subclass that says how its batch
 * application is started ({@link #targets()}: which app class, which client jars, which JDK), how a call is spelled
 * for each of its modes ({@link #modeParts}), and what genuinely differs (how a non-replayable body is made, whether
 * a call can be cancelled and what the caller then sees). A new client is a new driver.
 *
 * <p>A target is one forked JVM that makes every call of every one of its modes at once, each to a server of its
 * own; the policy's rules (by path) give each call the settings it needs. A driver may add calls of its own to the
 * same JVM ({@link #addOwnCalls}) and check them ({@link #checkOwn}), so the suite forks no more JVMs than the
 * clients' behaviours need.
 *
 * @param <T> the driver's description of one forked JVM
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
public abstract class ClientContract<T extends ClientContract.Target> {
    protected static final Duration WAIT = Duration.ofSeconds(10);
    /** The mode of a client's async API, where the defaults of {@link #cancels} and {@link #interrupts} differ. */
    protected static final String ASYNC = "async";

    /**
     * Bounds on elapsed time that are the point of a check, in one place. Each is well below the time the call
     * would take if the behaviour were missing, and well above what it takes on a loaded machine.
     */
    public static final class Bounds {
        /** A call returned without any wait: less than the 1 s a Retry-After or a backoff would have cost. */
        public static final long AT_ONCE_MS = 1000;
        /**
         * A call whose server asked for 10 s ({@code /busy/**}) came back without that wait: half of it, so that a cold
         * client on a busy machine is not taken for a wait (the give-up line and the one request say no retry was made).
         */
        public static final long WITHOUT_RETRY_AFTER_WAIT_MS = 5000;
        /**
         * The 1 s deadline of {@code /deadline/**}, one 400 ms wait, and 1 s for the last attempt, which may start just
         * before the deadline and is slow on a busy machine. A call that ignored the deadline would take its ten
         * attempts: 3.6 s of waits alone. A wait across the deadline shows as a fourth attempt when attempts are quick.
         */
        public static final long DEADLINE_MS = 1000 + 400 + 1000;
        /** The 500 ms deadline of {@code /deadline-short/**} plus a margin smaller than its 2 s backoff. */
        public static final long SHORT_DEADLINE_MS = 500 + 1000;
        /**
         * Cancelled in the first 5 s wait of {@code /cancel/**}, once the agent logged its retry (a wait that long,
         * so that a busy machine passing the signal on late still cancels within it): the call ends by the end of
         * that wait at the latest (a sync OkHttp call then; the others at the cancel), far before the 20 s of waits
         * its remaining attempts would take.
         */
        public static final long CANCEL_MS = 8000;
        /**
         * Cancelled once the server has received the second attempt, whose answer is held 8 s: the call ends well
         * before that answer.
         */
        public static final long CANCEL_IN_FLIGHT_MS = 6000;
        /** Disconnected at 300 ms while the answer is held 2 s: the call ends before that answer. */
        public static final long DISCONNECT_MS = 1500;
        /**
         * From the interrupt of a thread waiting out the 5 s backoff of {@code /interrupt/**} to the call's return.
         * What the agent takes is a few ms (the latency is printed); the bound allows a loaded 2-core machine and is
         * still far below the rest of the wait, which is what a call that ignored the interrupt would take.
         */
        public static final long INTERRUPT_MS = 1000;
        /** When the caller's thread is interrupted: after the first attempt's 503, early in the 5 s wait. */
        public static final long INTERRUPT_AFTER_MS = 2000;

        private Bounds() {
        }
    }

    public static final String POLICY = """
            version: 1
            defaults:
              maxAttempts: 3
              backoff: { base: 20ms, cap: 50ms }
              retryAfter: { honor: true, max: 3s, spread: 0.1 }
            rules:
              - match: { path: "/deadline/**" }
                maxAttempts: 10
                backoff: { base: 400ms, cap: 400ms, jitter: none }
                deadline: 1s
              - match: { path: "/deadline-short/**" }
                backoff: { base: 2s, cap: 2s, jitter: none }
                deadline: 500ms
              - match: { path: "/cancel/**" }
                maxAttempts: 5
                backoff: { base: 5s, cap: 5s, jitter: none }
              - match: { path: "/slow/**" }
                maxAttempts: 5
                backoff: { base: 1s, cap: 1s, jitter: none }
              - match: { path: "/refused/**" }
                maxAttempts: 8
                backoff: { base: 300ms, cap: 300ms, jitter: none }
              - match: { path: "/interrupt/**" }
                backoff: { base: 5s, cap: 5s, jitter: none }
              - match: { path: "/budget/**" }
                budget: { ratio: 0, minPerSecond: 0 }
              - match: { path: "/off/**" }
                mode: off
            """;

    /** One forked JVM: a client version on a JDK, making the calls of {@link #modes()}. */
    public interface Target {
        /** The modes (sync, async, classic, fluent, ...) whose calls this JVM makes; each names its calls' ids. */
        List<String> modes();

        /** The batch application with its client jars, JDK and class path; the contract adds policy and args. */
        ForkedApp app(String run);
    }

    /** Which forked run a call or a check belongs to. */
    public enum Run {
        /** The agent with {@link #POLICY}, retrying. */
        CONTRACT,
        /** The agent in {@code mode=observe}. */
        OBSERVE,
        /** A policy that fails validation: the agent runs without retries. */
        BROKEN_POLICY
    }

    // ---- the driver ----

    /** The JVMs of the main contract run. */
    protected abstract Stream<T> targets();

    /** The JVMs of the observe and broken-policy runs (fewer: those change no traffic). */
    protected abstract Stream<T> quietTargets();

    /** The client's name in the agent's log lines ({@code client=...}). */
    protected abstract String clientName();

    /**
     * The spec parts that make a call of {@code mode} ({@code mode=async}, {@code api=fluent}, a client kind). For a
     * {@link Run#OBSERVE} or {@link Run#BROKEN_POLICY} call the client must make exactly one request per call alone.
     */
    protected abstract List<String> modeParts(String mode, Run run);

    /** The spec part that makes the request body one the client cannot send twice. */
    protected abstract String nonReplayableBody(String mode);

    /**
     * Whether a call of {@code mode} can be cancelled while the agent waits between attempts: by default a call of the
     * mode named {@code async} (its future), as the clients' async APIs are.
     */
    protected boolean cancels(String mode) {
        return ASYNC.equals(mode);
    }

    /**
     * Whether a call of {@code mode} waits between attempts on the caller's thread, so that the caller stops it by
     * interrupting that thread (a {@code interruptAfterMs=N} part interrupts it; the result reports
     * {@code interrupted} and {@code sinceInterruptUs}): by default every mode but {@code async}.
     */
    protected boolean interrupts(String mode) {
        return !ASYNC.equals(mode);
    }

    /**
     * Whether a call of {@code mode} can be cancelled while an attempt the application never saw is in flight: by
     * default a call of the mode {@code async}.
     */
    protected boolean cancelsInFlight(String mode) {
        return ASYNC.equals(mode);
    }

    /**
     * What the caller of a cancelled call saw, and how often it was called back. By default: {@code
     * future.cancel(true)}, so the caller's {@code get()} threw a CancellationException ({@code cancelled=true}), and
     * an app that prints {@code CALLBACKS} lines heard of it once, as {@code cancelled}.
     */
    protected void assertCancelled(ForkedApp.Result run, String id) {
        ReportLine cancelled = result(run, id);
        assertEquals("true", cancelled.get("cancelled"), cancelled.toString());
        List<ReportLine> callbacks = run.lines("CALLBACKS");
        if (!callbacks.isEmpty()) {
            ReportLine heard = callbacks.stream().filter(l -> l.get("id").equals(id)).findFirst()
                    .orElseThrow(() -> new AssertionError("no CALLBACKS line for " + id + "\n" + run.describe()));
            assertEquals("cancelled", heard.get("kinds"), heard.toString());
        }
    }

    /** The RESULT field with the response's Retry-After header. */
    protected String retryAfterField() {
        return "h.Retry-After";
    }

    /** Arguments of the batch application besides the calls (how the client is made, ...). */
    protected List<String> appArgs(T target, Run run) {
        return List.of();
    }

    /** Spec parts the client adds to a contract call ({@code scenario} is the id without the mode). */
    protected List<String> extraParts(String mode, String scenario) {
        return List.of();
    }

    /** Calls of the client's own in the same JVM. */
    protected void addOwnCalls(T target, Run run, Batch batch) {
    }

    /** The checks of the client's own calls, and of what it adds to the contract's. */
    protected void checkOwn(T target, Run run, Batch batch, ForkedApp.Result result) {
    }

    // ---- the contract ----

    private List<String> parts(String mode, Run run, String scenario, String... more) {
        List<String> parts = new ArrayList<>(modeParts(mode, run));
        parts.addAll(List.of(more));
        if (run == Run.CONTRACT) {
            parts.addAll(extraParts(mode, scenario));
        }
        return parts;
    }

    private static Step attempt(int status, int n) {
        return Step.status(status).header("X-Attempt", Integer.toString(n));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void retriesAsTheContractSays(T target) throws Exception {
        try (Batch b = new Batch()) {
            Run c = Run.CONTRACT;
            for (String m : target.modes()) {
                b.add(m + "-get", "/items/" + m + "?token=s3cr3t-q7", parts(m, c, "get"),
                        attempt(503, 1).body("busy"), attempt(503, 2).body("busy"), attempt(200, 3).body("fine"));
                b.add(m + "-postNoKey", "/orders/" + m, parts(m, c, "postNoKey", "method=POST", "body=b"),
                        Step.status(503).body("busy"), Step.ok());
                b.add(m + "-postKey", "/pay/" + m, parts(m, c, "postKey", "method=POST", "body=payload",
                        "header=Idempotency-Key: k-1"), Step.status(503), Step.status(201).body("created"));
                b.add(m + "-notFound", "/missing/" + m, parts(m, c, "notFound"), Step.status(404).body("nope"),
                        Step.ok());
                b.add(m + "-raSeconds", "/limited/" + m, parts(m, c, "raSeconds"),
                        Step.status(429).retryAfterSeconds(1), Step.ok());
                b.add(m + "-raDate", "/limited-until/" + m, parts(m, c, "raDate")); // scripted once the app is ready
                b.add(m + "-raTooLong", "/busy/" + m, parts(m, c, "raTooLong"), Step.status(503).retryAfterSeconds(10),
                        Step.ok());
                b.add(m + "-deadline", "/deadline/" + m, parts(m, c, "deadline"), Step.status(503));
                b.add(m + "-deadlineShort", "/deadline-short/" + m, parts(m, c, "deadlineShort"), Step.status(503),
                        Step.ok());
                b.add(m + "-nonReplayable", "/upload/" + m, parts(m, c, "nonReplayable", "method=POST", "body=stream",
                        nonReplayableBody(m), "header=Idempotency-Key: k-2"), Step.status(503), Step.ok());
                b.add(m + "-budget", "/budget/" + m, parts(m, c, "budget"), Step.status(503).body("busy"), Step.ok());
                // 502: a status no client retries alone (HttpClient 5's own strategy retries 429 and 503)
                b.add(m + "-off", "/off/" + m, parts(m, c, "off"), Step.status(502).body("bad"), Step.ok());
                b.add(m + "-nested", "/nested/" + m, parts(m, c, "nested", "header=Retry-Attempt: 7"),
                        Step.status(503), Step.ok());
                // the attempt header of the AWS SDK's own retry loop: another layer retries, unless it allows one
                // attempt
                b.add(m + "-sdkLayer", "/sdk/" + m, parts(m, c, "sdkLayer", "header=amz-sdk-request: attempt=1%3B max=3"),
                        Step.status(503), Step.ok());
                b.add(m + "-sdkNoRetries", "/sdk-once/" + m, parts(m, c, "sdkNoRetries",
                        "header=amz-sdk-request: attempt=1%3B max=1"), Step.status(503), Step.status(503).body("busy"),
                        Step.status(200).body("fine"));
                if (cancels(m)) {
                    b.add(m + "-cancel", "/cancel/wait/" + m, parts(m, c, "cancel", "cancelOn=" + m + "-cancel"),
                            Step.status(503));
                    b.signalAfter(m + "-cancel", waitingToRetry("/cancel/wait/" + m));
                }
                if (interrupts(m)) {
                    b.add(m + "-interrupt", "/interrupt/" + m, parts(m, c, "interrupt",
                            "interruptAfterMs=" + Bounds.INTERRUPT_AFTER_MS), Step.status(503).body("busy"));
                }
                if (cancelsInFlight(m)) {
                    ScriptedServer inFlight = b.add(m + "-cancelInFlight", "/slow/flight/" + m, parts(m, c,
                            "cancelInFlight", "cancelOn=" + m + "-cancelInFlight"), Step.status(503),
                            Step.ok().delay(Duration.ofSeconds(8)));
                    b.signalAfter(m + "-cancelInFlight", app -> inFlight.awaitRequests(2, WAIT));
                }
            }
            addOwnCalls(target, c, b);
            for (String m : target.modes()) {
                b.addRefusing(m + "-refused", "/refused/" + m, parts(m, c, "refused"));
                b.addRefusing(m + "-refusedPost", "/refused/post/" + m, parts(m, c, "refusedPost", "method=POST",
                        "body=order-17"));
            }

            ForkedApp.Result run;
            Instant raDateUntil;
            try (ForkedApp.Running app = target.app("agent").policy(POLICY).agentArg("log", "debug")
                    .args(appArgs(target, c)).args("--await-go").args(b.args()).start()) {
                app.awaitStdoutLine(l -> l.equals("READY"), Duration.ofSeconds(60));
                // An HTTP-date has whole seconds: 3 s ahead is at least ~2 s ahead when the 429 arrives.
                raDateUntil = Instant.now().plusSeconds(3);
                for (String m : target.modes()) {
                    b.server(m + "-raDate").script(Step.status(429).retryAfterDate(raDateUntil), Step.ok());
                }
                app.writeLine("go");
                CompletableFuture<Void> signalled = b.sendSignals(app);
                // Connection refused until the agent has logged a retry of it; then the port opens.
                for (String m : target.modes()) {
                    for (String path : List.of("/refused/", "/refused/post/")) {
                        String id = m + (path.equals("/refused/") ? "-refused" : "-refusedPost");
                        app.awaitStderrLine(l -> l.contains("path=" + path + m + " ")
                                && l.contains("cause=failure:connect sent=no"), Duration.ofSeconds(20));
                        b.openLate(id);
                    }
                }
                signalled.join(); // before await(), which closes the application's stdin
                run = app.await();
            }
            run.assertExitCode(0);
            for (String m : target.modes()) {
                assertContract(m, b, run, raDateUntil);
            }
            assertFalse(run.stderr().contains("s3cr3t-q7"), "no query string in the log\n" + run.stderr());
            for (String line : run.agentLog()) {
                assertTrue(line.startsWith("retry-agent "), "one line per event, prefix retry-agent: " + line);
            }
            checkOwn(target, c, b, run);
        }
    }

    /**
     * The event a cancel between attempts follows: the agent logged its retry of the call at {@code path}, so the
     * call is in its wait (5 s under {@code /cancel/**}), whatever time its first attempt took on a busy machine.
     */
    protected static Consumer<ForkedApp.Running> waitingToRetry(String path) {
        return app -> app.awaitStderrLine(l -> l.contains(" retry ") && l.contains("path=" + path + " "), WAIT);
    }

    private void assertContract(String m, Batch b, ForkedApp.Result run, Instant raDateUntil) {
        // GET 503, 503, 200: three attempts, each marked, the caller sees the 200
        ReportLine r = result(run, m + "-get");
        assertEquals(200, r.getInt("status"), run.describe());
        assertEquals("fine", r.get("body"));
        List<RecordedRequest> seen = b.server(m + "-get").awaitRequests(3, WAIT);
        assertEquals(3, seen.size(), seen.toString());
        assertEquals(List.of("1", "2", "3"), markers(seen), m);
        assertEquals("/items/" + m + "?token=s3cr3t-q7", seen.get(2).target());
        assertTrue(logged(run, "retry client=" + clientName() + " method=GET host=127.0.0.1 path=/items/" + m
                + " attempt=2/3 cause=status:503"), run.describe());

        // POST without an idempotency key: one request, unmarked (the client's own resend is gone); caller sees 503
        r = result(run, m + "-postNoKey");
        assertEquals(503, r.getInt("status"), run.describe());
        ScriptedServer server = b.server(m + "-postNoKey");
        assertEquals(1, server.requestCount(), m);
        assertNull(server.requests().get(0).header("Retry-Attempt"), m + ": a request the agent will not retry is unmarked");
        assertTrue(logged(run, "give up", "path=/orders/" + m + " ", "reason=not-idempotent"), run.describe());

        // POST with a key: retried, marked, same key and byte-identical body each time
        r = result(run, m + "-postKey");
        assertEquals(201, r.getInt("status"), run.describe());
        assertEquals("created", r.get("body"));
        seen = b.server(m + "-postKey").awaitRequests(2, WAIT);
        assertEquals(2, seen.size(), m + " " + seen);
        assertEquals(List.of("k-1", "k-1"), seen.stream().map(q -> q.header("Idempotency-Key")).toList());
        assertEquals(List.of("payload", "payload"), seen.stream().map(RecordedRequest::bodyUtf8).toList());
        assertEquals(List.of("1", "2"), markers(seen), m);

        // 404 is not retryable
        assertEquals(404, result(run, m + "-notFound").getInt("status"));
        assertEquals(1, b.server(m + "-notFound").requestCount(), m);

        // Retry-After: 1 and an HTTP-date: the second attempt comes no earlier than asked
        assertEquals(200, result(run, m + "-raSeconds").getInt("status"), run.describe());
        seen = b.server(m + "-raSeconds").awaitRequests(2, WAIT);
        assertEquals(2, seen.size(), seen.toString());
        long waited = seen.get(1).millisAfter(seen.get(0));
        assertTrue(waited >= 1000, m + "-raSeconds waited " + waited);
        assertEquals(200, result(run, m + "-raDate").getInt("status"), run.describe());
        RetryAfterDates.assertNotBefore(raDateUntil, b.server(m + "-raDate").awaitRequests(2, WAIT));

        // Retry-After beyond retryAfter.max: returned at once
        r = result(run, m + "-raTooLong");
        assertEquals(503, r.getInt("status"));
        assertEquals("10", r.get(retryAfterField()));
        assertTrue(r.getLong("elapsedMs") < Bounds.WITHOUT_RETRY_AFTER_WAIT_MS, r.toString());
        assertEquals(1, b.server(m + "-raTooLong").requestCount());
        assertTrue(logged(run, "give up", "path=/busy/" + m + " ", "reason=retry-after-too-long"), run.describe());

        // deadline 1s, waits of 400ms: attempts at 0, 0.4, 0.8 s at the earliest, then no wait may cross the deadline.
        // A cold JVM's first attempt may itself take most of the second, so the count follows from the times: each
        // retry came a whole wait after the attempt before it, and the call gave up only when a wait would have
        // crossed the deadline, so it ended later than 1 s minus one wait (a call that was not retried at all while
        // it had the time would end long before).
        r = result(run, m + "-deadline");
        assertEquals(503, r.getInt("status"));
        assertTrue(r.getLong("elapsedMs") < Bounds.DEADLINE_MS, r.toString());
        assertTrue(r.getLong("elapsedMs") > 1000 - 400, "gave up before a wait would cross the deadline: " + r);
        server = b.server(m + "-deadline");
        List<RecordedRequest> attempts = server.requests();
        assertTrue(attempts.size() >= 1 && attempts.size() <= 3, attempts.toString());
        for (int i = 1; i < attempts.size(); i++) {
            assertTrue(attempts.get(i).millisAfter(attempts.get(i - 1)) >= 400, attempts.toString());
        }
        assertTrue(logged(run, "give up", "path=/deadline/" + m + " ", "reason=deadline"), run.describe());

        // a deadline shorter than the backoff: no attempt after the first, returned at once
        r = result(run, m + "-deadlineShort");
        assertEquals(503, r.getInt("status"));
        assertTrue(r.getLong("elapsedMs") < Bounds.SHORT_DEADLINE_MS, r.toString());
        assertEquals(1, b.server(m + "-deadlineShort").requestCount());
        assertTrue(logged(run, "give up", "path=/deadline-short/" + m + " ", "reason=deadline"), run.describe());

        // a body the client cannot replay is never sent twice, even with a key; unmarked, as it will not be retried
        r = result(run, m + "-nonReplayable");
        assertEquals(503, r.getInt("status"), run.describe());
        server = b.server(m + "-nonReplayable");
        assertEquals(1, server.requestCount(), m);
        assertEquals("stream", server.requests().get(0).bodyUtf8());
        assertNull(server.requests().get(0).header("Retry-Attempt"), m + ": a body that cannot be replayed: unmarked");
        assertTrue(logged(run, "give up", "path=/upload/" + m + " ", "reason=body-not-replayable"), run.describe());

        // a budget that allows no retry at this destination: the first retry is refused, the caller sees the 503
        r = result(run, m + "-budget");
        assertEquals(503, r.getInt("status"), r.toString());
        assertEquals("busy", r.get("body"));
        server = b.server(m + "-budget");
        assertEquals(1, server.requestCount(), m);
        assertEquals("1", server.requests().get(0).header("Retry-Attempt"), "a request the agent may retry is marked");
        assertTrue(logged(run, "give up", "path=/budget/" + m + " ", "attempt=1/3", "reason=budget"), run.describe());

        // mode off for a rule: the agent changes nothing on the wire for those calls
        r = result(run, m + "-off");
        assertEquals(502, r.getInt("status"), r.toString());
        assertEquals("bad", r.get("body"));
        server = b.server(m + "-off");
        assertEquals(1, server.requestCount(), m);
        assertNull(server.requests().get(0).header("Retry-Attempt"), "mode off adds no marker");
        assertFalse(logged(run, "path=/off/" + m + " "), run.describe());

        // a request that carries the marker already (a layer above sent it) is made exactly once, unchanged
        r = result(run, m + "-nested");
        assertEquals(503, r.getInt("status"), r.toString());
        server = b.server(m + "-nested");
        assertEquals(1, server.requestCount(), m);
        assertEquals("7", server.requests().get(0).header("Retry-Attempt"));
        assertTrue(logged(run, "give up", "path=/nested/" + m + " ", "reason=nested"), run.describe());

        // inside the AWS SDK's own retry loop (its attempt header): sent once, unmarked, that layer retries
        r = result(run, m + "-sdkLayer");
        assertEquals(503, r.getInt("status"), r.toString());
        server = b.server(m + "-sdkLayer");
        assertEquals(1, server.requestCount(), m);
        assertNull(server.requests().get(0).header("Retry-Attempt"), "deferred: unmarked, a layer below may retry");
        assertTrue(logged(run, "give up", "path=/sdk/" + m + " ", "reason=upper-layer", "layer=aws-sdk-v2"),
                run.describe());
        // the SDK configured for one attempt is no layer: the agent retries
        r = result(run, m + "-sdkNoRetries");
        assertEquals(200, r.getInt("status"), r.toString());
        assertEquals(List.of("1", "2", "3"), markers(b.server(m + "-sdkNoRetries").requests()), m);

        // connection refused, then the port opens: the call recovers
        r = result(run, m + "-refused");
        assertEquals(200, r.getInt("status"), run.describe());
        assertEquals("late", r.get("body"));
        assertEquals(1, b.late(m + "-refused").requestCount());

        // a POST without key whose connection was refused never left: retried all the same, and received once
        r = result(run, m + "-refusedPost");
        assertEquals(200, r.getInt("status"), run.describe());
        assertEquals(List.of("POST /refused/post/" + m + " HTTP/1.1\n\norder-17"), b.late(m + "-refusedPost").received());
        assertTrue(logged(run, "retry ", "method=POST", "path=/refused/post/" + m + " ", "cause=failure:connect sent=no"),
                run.describe());

        // cancelled while waiting between attempts: no further attempt
        if (cancels(m)) {
            assertCancelled(run, m + "-cancel");
            r = result(run, m + "-cancel");
            assertTrue(r.getLong("elapsedMs") < Bounds.CANCEL_MS, r.toString());
            server = b.server(m + "-cancel");
            assertEquals(1, server.requestCount(), server.requests().toString());
        }
        // interrupted while waiting between attempts: returns at once, not after the wait, with the flag kept and an
        // InterruptedIOException (the 503 was released before the wait); no further attempt
        if (interrupts(m)) {
            r = result(run, m + "-interrupt");
            String latency = r.get("sinceInterruptUs");
            System.out.printf("INTERRUPT client=%s mode=%s sinceInterruptMs=%.3f elapsedMs=%s failure=%s message=%s%n",
                    clientName(), m, latency.equals("null") ? Double.NaN : Long.parseLong(latency) / 1000.0,
                    r.get("elapsedMs"), r.get("failure"), r.get("message"));
            assertEquals("java.io.InterruptedIOException", r.get("failure"), r.toString());
            assertTrue(r.getBoolean("interrupted"), "the interrupt flag is kept: " + r);
            assertTrue(Long.parseLong(latency) < Bounds.INTERRUPT_MS * 1000, "returned long after the interrupt: " + r);
            assertTrue(r.getLong("elapsedMs") < Bounds.INTERRUPT_AFTER_MS + Bounds.INTERRUPT_MS, r.toString());
            assertEquals(1, b.server(m + "-interrupt").requestCount(), b.server(m + "-interrupt").requests().toString());
            assertTrue(logged(run, "retry", "path=/interrupt/" + m + " ", "attempt=2/3", "wait=5000ms"), run.describe());
        }
        // ... and while the second attempt is in flight: it is aborted, and there is no third
        if (cancelsInFlight(m)) {
            assertCancelled(run, m + "-cancelInFlight");
            r = result(run, m + "-cancelInFlight");
            assertTrue(r.getLong("elapsedMs") < Bounds.CANCEL_IN_FLIGHT_MS, r.toString());
            assertEquals(2, b.server(m + "-cancelInFlight").requestCount());
        }
    }

    /** Observe mode decides and logs, and changes no traffic: one request per call, no marker. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("quietTargets")
    void observeModeDecidesAndLogsButChangesNoTraffic(T target) throws Exception {
        try (Batch b = new Batch()) {
            for (String m : target.modes()) {
                b.add(m + "-observed", "/observed/" + m, parts(m, Run.OBSERVE, "observed"), Step.status(503), Step.ok());
                b.add(m + "-observedSdk", "/observed-sdk/" + m, parts(m, Run.OBSERVE, "observedSdk",
                        "header=amz-sdk-request: attempt=1%3B max=3"), Step.status(503), Step.ok());
            }
            addOwnCalls(target, Run.OBSERVE, b);
            ForkedApp.Result run = target.app("observe").policy(POLICY).agentArg("mode", "observe")
                    .args(appArgs(target, Run.OBSERVE)).args(b.args()).run().assertExitCode(0);
            for (String m : target.modes()) {
                assertEquals(503, result(run, m + "-observed").getInt("status"), run.describe());
                ScriptedServer server = b.server(m + "-observed");
                assertEquals(1, server.requestCount(), m);
                assertNull(server.requests().get(0).header("Retry-Attempt"), "observe adds no marker");
                assertTrue(logged(run, "would retry", "client=" + clientName(), "path=/observed/" + m + " "),
                        run.describe());
                // inside the AWS SDK's own retry loop: what enforce would do is said, nothing is changed
                assertEquals(503, result(run, m + "-observedSdk").getInt("status"), run.describe());
                assertEquals(1, b.server(m + "-observedSdk").requestCount(), m);
                assertTrue(logged(run, "would defer", "path=/observed-sdk/" + m + " ", "reason=upper-layer",
                        "layer=aws-sdk-v2"), run.describe());
            }
            checkOwn(target, Run.OBSERVE, b, run);
        }
    }

    /** A policy that fails validation: the application runs, the agent retries nothing, the error is logged. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("quietTargets")
    void aBrokenPolicyLeavesTheApplicationRunningWithoutRetries(T target) throws Exception {
        try (Batch b = new Batch()) {
            for (String m : target.modes()) {
                b.add(m + "-off", "/a/" + m, parts(m, Run.BROKEN_POLICY, "off"), Step.status(503).body("busy"),
                        Step.ok());
            }
            addOwnCalls(target, Run.BROKEN_POLICY, b);
            ForkedApp.Result run = target.app("broken-policy").policy("version: 1\ndefaults:\n  maxAttempts: lots\n")
                    .args(appArgs(target, Run.BROKEN_POLICY)).args(b.args()).run().assertExitCode(0);
            for (String m : target.modes()) {
                ReportLine r = result(run, m + "-off");
                assertEquals(503, r.getInt("status"), run.describe());
                assertEquals("busy", r.get("body"));
                ScriptedServer server = b.server(m + "-off");
                assertEquals(1, server.requestCount(), m);
                assertNull(server.requests().get(0).header("Retry-Attempt"));
            }
            assertTrue(logged(run, "retry-agent policy-error ", "policy.yaml:3: defaults.maxAttempts"), run.describe());
            assertTrue(logged(run, "without retries"), run.describe());
            checkOwn(target, Run.BROKEN_POLICY, b, run);
        }
    }
}
