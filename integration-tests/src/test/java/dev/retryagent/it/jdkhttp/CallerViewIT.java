package dev.retryagent.it.jdkhttp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import org.junit.jupiter.api.Tag;

import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.harness.ReportLine;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a {@code java.net.http} application sees of its calls is the client's own: {@link CallerViewApp} makes the same
 * calls alone, under a policy that retries nothing ({@code builtInRetries: keep}, {@code maxAttempts: 1}), and under
 * the built-in default policy, and prints, per failure (a request timeout, a refused connection, a connection dropped
 * after the request) and per form ({@code send}, {@code sendAsync} with two arguments, with a push promise handler, with
 * a null one), the exceptions its dependent stages get and a {@code send} failure's stack, and per response the
 * request it says it answers (and the previous response's, after a redirect). Each line is the same as alone.
 */
@Tag(Jdks.MATRIX)
class CallerViewIT {
    static final String TRANSPARENT = "version: 1\nbuiltInRetries: keep\ndefaults:\n  maxAttempts: 1\n";
    static final List<String> FORMS = List.of("send", "async2", "async3", "async3null");

    static List<Jdks.Jdk> jdks() {
        return Jdks.of(Jdks.JAVA_11_UP);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void theCallerSeesWhatTheClientAloneGives(Jdks.Jdk jdk) throws Exception {
        Map<String, ReportLine> alone = run(jdk, "alone", app -> app);
        Map<String, ReportLine> transparent = run(jdk, "transparent", app -> app.policy(TRANSPARENT));
        Map<String, ReportLine> byDefault = run(jdk, "default", ForkedApp::withAgent);

        for (String form : FORMS) {
            assertEquals("java.net.http.HttpTimeoutException", failureSeen(alone.get("timeout-" + form)),
                    alone.get("timeout-" + form).toString());
            assertEquals("true", alone.get("ok-" + form).get("equals"), alone.get("ok-" + form).toString());
            assertEquals("false", alone.get("ok-" + form).get("marker"));
            assertEquals("true", alone.get("redirect-" + form).get("previousEquals"));
        }
        // the client alone: a dependent stage of sendAsync's future gets the failure in a CompletionException
        assertEquals("java.util.concurrent.CompletionException", alone.get("timeout-async2").get("whenComplete"));
        assertEquals("1", alone.get("timeout-send").get("sendFrames"));

        List<String> differences = new ArrayList<>();
        for (String id : alone.keySet()) {
            Map<String, String> a = withoutSame(alone.get(id));
            for (Map.Entry<String, Map<String, ReportLine>> agent
                    : Map.of("transparent", transparent, "default", byDefault).entrySet()) {
                Map<String, String> seen = withoutSame(agent.getValue().get(id));
                if (!a.equals(seen)) {
                    differences.add(agent.getKey() + " policy, " + id + ": alone " + a + "\n  with the agent " + seen);
                }
            }
        }
        assertEquals(List.of(), differences, "on " + jdk + ":\n" + String.join("\n", differences));
        for (String form : FORMS) {
            // the agent sent a marked copy, and the response answers with the application's request, unmarked
            ReportLine ok = byDefault.get("ok-" + form);
            assertEquals("true", ok.get("equals"), ok.toString());
            assertEquals("entry", ok.get("mapHit"), ok.toString());
            assertFalse(Boolean.parseBoolean(ok.get("marker")), ok.toString());
            if (!form.equals("async3")) { // a sendAsync with a push promise handler is left alone
                assertEquals("true", ok.get("same"), ok.toString());
                assertEquals("true", byDefault.get("redirect-" + form).get("previousSame"));
            }
        }
    }

    /**
     * A line without whether {@code response.request()} is the application's own object: the client alone gives its
     * own copy, equal to it; the agent gives the application's request where the response answers it unchanged
     * (docs/reference.md, what the caller sees).
     */
    private static Map<String, String> withoutSame(ReportLine line) {
        assertTrue(line != null, "a RESULT line for every call");
        Map<String, String> values = new TreeMap<>(line.values());
        values.remove("same");
        values.remove("previousSame");
        return values;
    }

    private static String failureSeen(ReportLine line) {
        return line.has("thrown") ? line.get("thrown") : line.get("whenCompleteCause");
    }

    /** One fork of the app on {@code jdk}, against servers of its own, as {@code setup} runs it. */
    private static Map<String, ReportLine> run(Jdks.Jdk jdk, String name, UnaryOperator<ForkedApp> setup)
            throws Exception {
        List<Step> redirects = new ArrayList<>();
        for (int i = 0; i < FORMS.size(); i++) {
            redirects.add(Step.status(302).header("Location", "/final"));
            redirects.add(Step.ok().body("moved"));
        }
        try (ScriptedServer late = ScriptedServer.start(Step.ok().delay(Duration.ofSeconds(30)));
                ScriptedServer dropping = ScriptedServer.start(Step.dropAfterRequest());
                ScriptedServer ok = ScriptedServer.start(Step.ok().body("fine"));
                ScriptedServer redirecting = ScriptedServer.start(redirects.toArray(new Step[0]))) {
            ForkedApp app = ForkedApp.of(CallerViewApp.class).name("jdkhttp-callerview-" + name + "-" + jdk)
                    .java(jdk.java()).args("--timeout", late.url("/late"),
                            "--refused", "http://127.0.0.1:" + ScriptedServer.refusingPort() + "/refused",
                            "--dropped", dropping.url("/dropped"), "--ok", ok.url("/ok"),
                            "--redirect", redirecting.url("/moved"));
            ForkedApp.Result result = setup.apply(app).run().assertExitCode(0);
            assertTrue(result.single("APP").get("java").startsWith(jdk.javaVersionPrefix()), result.describe());
            assertFalse(result.stderr().contains("internal-error"), result.describe());
            Map<String, ReportLine> byId = new TreeMap<>();
            for (ReportLine line : result.results()) {
                byId.put(line.get("id"), line);
            }
            return byId;
        }
    }
}
