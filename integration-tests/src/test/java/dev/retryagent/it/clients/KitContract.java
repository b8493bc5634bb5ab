package dev.retryagent.it.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.retryagent.it.harness.RecordedRequest;
import dev.retryagent.it.harness.ScriptedServer;
import dev.retryagent.it.harness.Step;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link HttpKit} does, in this JVM (no agent) against a loopback server that records what arrives: a
 * kit that drops a body, a header or a status fails here, not as a puzzling agent test. A driver names its
 * client as the applications do; the kit is the one {@link Kits} makes of that name.
 */
abstract class KitContract {
    private static final byte[] PAYLOAD = "{\"payload\":1}".getBytes(StandardCharsets.UTF_8);

    private HttpKit kit;

    /** The client's name on the applications' command lines. */
    abstract String client();

    /** The kit the checks call: by default the one {@link Kits} makes of {@link #client()} in this JVM. */
    HttpKit newKit() {
        return Kits.create(client());
    }

    /** Whether the client's async API takes a one-shot body. */
    boolean asyncTakesOneShot() {
        return true;
    }

    @BeforeEach
    void makeKit() {
        kit = newKit();
    }

    @AfterEach
    void closeKit() throws IOException {
        kit.close();
    }

    private AsyncHttpKit asyncKit() {
        assumeTrue(kit instanceof AsyncHttpKit, client() + " has no async API");
        return (AsyncHttpKit) kit;
    }

    @Test
    void getAnswersStatusHeadersAndBody() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.status(201).header("X-Reply", "r1").body("hello"))) {
            KitReply reply = kit.call(KitRequest.get(server.url("/items?q=1")));
            assertReply(reply, 201, "hello");
            RecordedRequest seen = only(server);
            assertEquals("GET", seen.method());
            assertEquals("/items?q=1", seen.target());
            assertEquals(0, seen.body().length);
        }
    }

    @Test
    void postSendsItsBodyAndType() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.ok().body("done"))) {
            KitReply reply = kit.call(post(server).body(PAYLOAD, "application/json"));
            assertReply(reply, 200, "done");
            RecordedRequest seen = only(server);
            assertEquals("POST", seen.method());
            assertEquals(new String(PAYLOAD, StandardCharsets.UTF_8), seen.bodyUtf8());
            assertTrue(seen.header("Content-Type").startsWith("application/json"), seen.header("Content-Type"));
        }
    }

    @Test
    void headersArriveAndAContentTypeHeaderWins() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.ok())) {
            kit.call(post(server).header("X-Call-Id", "c-7").header("Authorization", "Bearer t")
                    .header("Content-Type", "text/csv").body(PAYLOAD, "application/json"));
            RecordedRequest seen = only(server);
            assertEquals("c-7", seen.header("X-Call-Id"));
            assertEquals("Bearer t", seen.header("Authorization"));
            assertTrue(seen.header("Content-Type").startsWith("text/csv"), seen.header("Content-Type"));
        }
    }

    @Test
    void anErrorStatusComesWithItsBody() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.status(503).body("busy"))) {
            assertReply(kit.call(KitRequest.get(server.url("/busy"))), 503, "busy");
        }
    }

    @Test
    void aOneShotBodyArrives() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(Step.ok())) {
            kit.call(KitRequest.of("PUT", server.url("/once")).body(PAYLOAD, "text/plain").oneShot());
            RecordedRequest seen = only(server);
            assertEquals("PUT", seen.method());
            assertEquals(new String(PAYLOAD, StandardCharsets.UTF_8), seen.bodyUtf8());
        }
    }

    @Test
    void aRefusedConnectionIsTheClientsIOException() {
        String url = "http://127.0.0.1:" + ScriptedServer.refusingPort() + "/refused";
        assertThrows(IOException.class, () -> kit.call(KitRequest.get(url)));
    }

    @Test
    void anAsyncCallCompletesWithTheReply() throws Exception {
        AsyncHttpKit async = asyncKit();
        try (ScriptedServer server = ScriptedServer.start(Step.status(202).header("X-Reply", "r1").body("later"))) {
            KitReply reply = async.callAsync(post(server).header("X-Call-Id", "a-1").body(PAYLOAD, "application/json"))
                    .get(30, TimeUnit.SECONDS);
            assertReply(reply, 202, "later");
            RecordedRequest seen = only(server);
            assertEquals(new String(PAYLOAD, StandardCharsets.UTF_8), seen.bodyUtf8());
            assertEquals("a-1", seen.header("X-Call-Id"));
        }
    }

    @Test
    void anAsyncOneShotBodyArrives() throws Exception {
        AsyncHttpKit async = asyncKit();
        assumeTrue(asyncTakesOneShot(), client() + "'s async API buffers every body");
        try (ScriptedServer server = ScriptedServer.start(Step.ok())) {
            async.callAsync(post(server).body(PAYLOAD, "text/plain").oneShot()).get(30, TimeUnit.SECONDS);
            assertEquals(new String(PAYLOAD, StandardCharsets.UTF_8), only(server).bodyUtf8());
        }
    }

    @Test
    void anAsyncFailureIsTheClientsIOException() throws Exception {
        AsyncHttpKit async = asyncKit();
        String url = "http://127.0.0.1:" + ScriptedServer.refusingPort() + "/refused";
        CompletableFuture<KitReply> reply = async.callAsync(KitRequest.get(url));
        assertThrows(IOException.class, () -> Kits.await(reply, 30, TimeUnit.SECONDS));
    }

    @Test
    void cancelEndsTheFutureOfACallInFlight() throws Exception {
        AsyncHttpKit async = asyncKit();
        try (ScriptedServer server = ScriptedServer.start(Step.ok().delay(Duration.ofSeconds(5)))) {
            CompletableFuture<KitReply> reply = async.callAsync(KitRequest.get(server.url("/slow")));
            server.awaitRequests(1, Duration.ofSeconds(10));
            long start = System.nanoTime();
            assertTrue(reply.cancel(true));
            assertThrows(CancellationException.class, () -> reply.get(1, TimeUnit.SECONDS));
            assertTrue(reply.isCancelled());
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 1000);
        }
    }

    @Test
    void theLookupNamesTheModes() {
        assertEquals(Kits.create(client()).getClass(), Kits.create(client() + "-sync").getClass());
        assertFalse(Kits.async(client()));
        assertTrue(Kits.async(client() + "-async"));
    }

    private static KitRequest post(ScriptedServer server) {
        return KitRequest.of("POST", server.url("/orders"));
    }

    private static void assertReply(KitReply reply, int status, String body) {
        assertEquals(status, reply.status());
        assertEquals(body, reply.bodyUtf8());
        if (reply.header("X-Reply") != null || status == 201 || status == 202) {
            assertEquals("r1", reply.header("x-reply"));
        }
    }

    private static RecordedRequest only(ScriptedServer server) {
        List<RecordedRequest> seen = server.awaitRequests(1, Duration.ofSeconds(10));
        assertEquals(1, server.requestCount(), "requests: " + seen);
        return seen.get(0);
    }

    /** The HttpURLConnection driver's check: a blocking-only client says so by its type. */
    static void assertBlockingOnly(HttpKit kit) {
        assertFalse(kit instanceof AsyncHttpKit, kit.getClass().getName());
    }
}
