package dev.retryagent.it.httpurlconnection;

import static dev.retryagent.it.harness.Runs.logged;
import static dev.retryagent.it.harness.Runs.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import org.junit.jupiter.api.Tag;

import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the agent reads of an attempt (its status, its {@code Retry-After}) never sends the request. The case where
 * the JDK's own reads do: a streaming PUT with {@code Expect: 100-continue} that the server answers in place of
 * {@code 100 Continue} (503 with {@code Retry-After}, 417, or a closed connection). Where the JDK does not keep that
 * failure as the connection's result (JDK-8314978: Java 8, 11 and 17.0.15 here; Java 25 keeps it), every read after
 * it that goes through {@code getInputStream()} sends the request again: the header getters, and
 * {@code getResponseCode()} when no status was read. The application writes the body, catches the failure and reads
 * everything ({@link HttpUrlConnectionBatch}, {@code afterWriteFailure=read}).
 *
 * <p>Each case runs alone, under a policy that retries nothing and keeps the JDK's own retries, and under the
 * built-in policy. With the agent the server sees exactly as many requests as alone, and the application reads the
 * same: the built-in policy allows three attempts of a PUT on a 503 or a reset, but never sends a streaming body
 * again. An agent that read the status through {@code getResponseCode()} adds a request per read in the closed
 * case, one that read {@code getHeaderField("Retry-After")} one per read in the refused cases. Prints one
 * {@code RESPONSE-READS} line per JDK and case with the counts.
 */
@Tag(Jdks.MATRIX)
@Timeout(180)
class ResponseReadsIT {
    static final String TRANSPARENT = "version: 1\nbuiltInRetries: keep\ndefaults:\n  maxAttempts: 1\n";
    /** What the application reports that differs from run to run. */
    static final List<String> TIMING = List.of("elapsedMs", "interrupted", "sinceInterruptUs");

    /**
     * How the server answers the head; whether the built-in policy would retry that answer (it gives up on the
     * streaming body, which it logs).
     */
    enum Answer {
        REFUSED_503(Step.refuseContinue(503).retryAfterSeconds(1), true),
        REFUSED_417(Step.refuseContinue(417), false),
        CLOSED(Step.dropBeforeContinue(), true);

        final Step step;
        final boolean retryable;

        Answer(Step step, boolean retryable) {
            this.step = step;
            this.retryable = retryable;
        }
    }

    static Stream<Arguments> cases() {
        return Jdks.of(Jdks.ALL).stream()
                .flatMap(jdk -> Stream.of(Answer.values()).map(answer -> Arguments.of(jdk, answer)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void theAgentsReadsOfARefusedUploadSendNothing(Jdks.Jdk jdk, Answer answer) throws Exception {
        Seen alone = run(jdk, answer, "alone", app -> app);
        Seen transparent = run(jdk, answer, "transparent", app -> app.policy(TRANSPARENT));
        Seen builtIn = run(jdk, answer, "built-in", ForkedApp::withAgent);
        System.out.println("RESPONSE-READS jdk=" + jdk + " answer=" + answer + " alone=" + alone.requests
                + " transparent=" + transparent.requests + " built-in=" + builtIn.requests);
        assertTrue(alone.requests >= 1, "the server saw the PUT alone");
        assertEquals(alone.requests, transparent.requests, "requests under a transparent policy, as alone");
        assertEquals(alone.requests, builtIn.requests, "a streaming body is never sent again by the agent");
        assertEquals(alone.result, transparent.result, "what the application read, as alone");
        assertEquals(alone.result, builtIn.result, "what the application read, as alone");
        if (answer.retryable) {
            assertTrue(logged(builtIn.run, "give up", "path=/upload ", "reason=body-not-replayable"),
                    "the agent saw the call: " + builtIn.run.describe());
        }
    }

    /** The requests the server saw, and what the application reported but its timings. */
    record Seen(int requests, Map<String, String> result, ForkedApp.Result run) {
    }

    /** The refused PUT and every read after it, on {@code jdk}, as {@code setUp} runs it. */
    private static Seen run(Jdks.Jdk jdk, Answer answer, String name, UnaryOperator<ForkedApp> setUp) {
        try (ScriptedServer server = ScriptedServer.start(answer.step)) {
            ForkedApp.Result run = setUp.apply(HttpUrlConnectionAgentIT.app(jdk, "response-reads-" + name))
                    .args("--call", HttpUrlConnectionAgentIT.call("put", server.url("/upload"), "method=PUT",
                            "body=payload", "streaming=fixed", "header=Expect: 100-continue", "read=header",
                            "afterWriteFailure=read"))
                    .run().assertExitCode(0);
            Map<String, String> result = new HashMap<>(result(run, "put").values());
            TIMING.forEach(result::remove);
            assertNotEquals("ok", result.get("write"), "the server refused the body: " + run.describe());
            assertTrue(server.requests().stream().allMatch(q -> q.method().equals("PUT")
                    && q.header("Retry-Attempt") == null), server.requests().toString());
            return new Seen(server.requestCount(), result, run); // each request is recorded before it is answered
        }
    }
}
