package dev.retryagent.agent.httpurlconnection.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.Clock;
import dev.retryagent.engine.RandomSource;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.PolicyLoader;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.HttpRetryException;
import java.net.HttpURLConnection;
import java.net.NoRouteToHostException;
import java.net.ProtocolException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URL;
import java.net.UnknownHostException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** HttpURLConnection requests and failures in the engine's terms; connections are opened, never connected. */
class HttpUrlConnectionRequestsTest {
    private static final RetryEngine ENGINE = engine(Policy.builtIn());
    /** An engine under {@code policy}: the facts are read under its policy. */
    private static RetryEngine engine(Policy policy) {
        return new RetryEngine(policy, Clock.SYSTEM, RandomSource.THREAD_LOCAL);
    }


    private static HttpURLConnection open(String url) throws IOException {
        return (HttpURLConnection) new URL(url).openConnection();
    }

    @Test
    void factsOfAPlainGet() throws IOException {
        HttpURLConnection conn = open("http://api.example.test:8080/v1/items?token=secret#frag");
        CallFacts facts = HttpUrlConnectionRequests.facts(conn, false, ENGINE, null);
        assertEquals("httpurlconnection", facts.client());
        assertEquals("GET", facts.method());
        assertEquals("http", facts.scheme());
        assertEquals("api.example.test", facts.host());
        assertEquals(8080, facts.port());
        assertEquals("/v1/items", facts.path(), "never the query");
        assertFalse(facts.idempotencyKeyPresent());
        assertTrue(facts.bodyReplayable());
        assertFalse(facts.markerPresent());
    }

    @Test
    void defaultPortsAndAnEmptyPath() throws IOException {
        CallFacts https = HttpUrlConnectionRequests.facts(open("https://Secure.Example.test"), false, ENGINE, null);
        assertEquals("https", https.scheme());
        assertEquals(443, https.port());
        assertEquals("/", https.path());
        assertEquals(80, HttpUrlConnectionRequests.facts(open("http://example.test/"), false, ENGINE, null).port());
    }

    @Test
    void keyAndMarkerFromTheRequestPropertiesWhateverTheirCase() throws IOException {
        HttpURLConnection conn = open("http://example.test/pay");
        conn.setRequestMethod("POST");
        conn.setRequestProperty("idempotency-key", "k-1");
        conn.addRequestProperty("RETRY-ATTEMPT", "2");
        CallFacts facts = HttpUrlConnectionRequests.facts(conn, false, ENGINE, null);
        assertEquals("POST", facts.method());
        assertTrue(facts.idempotencyKeyPresent());
        assertTrue(facts.markerPresent());
    }

    @Test
    void streamingBodiesAreNotReplayable() throws IOException {
        HttpURLConnection conn = open("http://example.test/upload");
        conn.setDoOutput(true);
        conn.setChunkedStreamingMode(16);
        CallFacts facts = HttpUrlConnectionRequests.facts(conn, true, ENGINE, null);
        assertFalse(facts.bodyReplayable());
        assertEquals("POST", facts.method(), "getOutputStream() turns a GET with output into a POST");
        HttpURLConnection buffered = open("http://example.test/upload");
        buffered.setDoOutput(true);
        assertEquals("GET", HttpUrlConnectionRequests.facts(buffered, false, ENGINE, null).method(),
                "until the body is asked for, a GET stays a GET");
    }

    @Test
    void theRulesSeeTheClientName() throws Exception {
        Policy policy = PolicyLoader.parse("version: 1\nrules:\n  - match: { client: httpurlconnection }\n"
                + "    idempotencyKeyHeaders: [X-Request-Id]\n", "p.yaml");
        HttpURLConnection conn = open("http://example.test/pay");
        conn.setRequestMethod("POST");
        conn.setRequestProperty("X-Request-Id", "r-1");
        assertTrue(HttpUrlConnectionRequests.facts(conn, false, engine(policy), null).idempotencyKeyPresent());
    }

    @Test
    void failuresAreClassifiedAsTheSpecSays() {
        assertEquals(FailureKind.CONNECT, HttpUrlConnectionRequests.classify(new ConnectException("Connection refused")));
        assertEquals(FailureKind.CONNECT, HttpUrlConnectionRequests.classify(new NoRouteToHostException()));
        assertEquals(FailureKind.CONNECT, HttpUrlConnectionRequests.classify(new SocketTimeoutException("Connect timed out")));
        assertEquals(FailureKind.CONNECT, HttpUrlConnectionRequests.classify(new SocketTimeoutException("connect timed out")));
        assertEquals(FailureKind.TIMEOUT, HttpUrlConnectionRequests.classify(new SocketTimeoutException("Read timed out")));
        assertEquals(FailureKind.TIMEOUT, HttpUrlConnectionRequests.classify(new SocketTimeoutException()));
        assertEquals(FailureKind.RESET, HttpUrlConnectionRequests.classify(new SocketException("Connection reset")));
        assertEquals(FailureKind.RESET,
                HttpUrlConnectionRequests.classify(new SocketException("Unexpected end of file from server")));
        assertEquals(FailureKind.RESET, HttpUrlConnectionRequests.classify(new EOFException()));
        assertEquals(FailureKind.RESET, HttpUrlConnectionRequests.classify(new SocketException("Broken pipe")));
        assertEquals(FailureKind.OTHER, HttpUrlConnectionRequests.classify(new SocketException("Socket closed")),
                "closed on this side (the application disconnected): not the server's reset");
        assertEquals(FailureKind.RESET, HttpUrlConnectionRequests.classify(new IOException("Error writing to server")));
        assertEquals(FailureKind.RESET,
                HttpUrlConnectionRequests.classify(new SSLException("closed", new SocketException("Connection reset"))));
        assertEquals(FailureKind.OTHER, HttpUrlConnectionRequests.classify(new SSLException("bad record MAC")));
        assertEquals(FailureKind.OTHER, HttpUrlConnectionRequests.classify(new SSLHandshakeException("PKIX path")));
        assertEquals(FailureKind.OTHER, HttpUrlConnectionRequests.classify(new UnknownHostException("nowhere")));
        assertEquals(FailureKind.OTHER, HttpUrlConnectionRequests.classify(new InterruptedIOException()));
        assertEquals(FailureKind.OTHER, HttpUrlConnectionRequests.classify(new ProtocolException("redirected too many times")));
        assertEquals(FailureKind.OTHER, HttpUrlConnectionRequests.classify(new HttpRetryException("auth", 401)));
        assertEquals(FailureKind.OTHER, HttpUrlConnectionRequests.classify(new IOException("Invalid Http response")));
        assertEquals(FailureKind.OTHER, HttpUrlConnectionRequests.classify(new FileNotFoundException("http://x/")));
    }

    @Test
    void aResponseIsDecidedUnderTheUrlTheRedirectsLeftTheConnectionAt() throws IOException {
        HttpURLConnection conn = open("http://a.example.test/items");
        conn.setRequestMethod("POST");
        CallFacts call = HttpUrlConnectionRequests.facts(conn, false, ENGINE, null);
        assertSame(call, HttpUrlConnectionRequests.decidedUnder(call, new URL("http://a.example.test:80/items")));
        assertSame(call, HttpUrlConnectionRequests.decidedUnder(call, null));

        CallFacts at = HttpUrlConnectionRequests.decidedUnder(call, new URL("https://b.example.test/moved?token=secret"));
        assertEquals("https", at.scheme());
        assertEquals("b.example.test", at.host());
        assertEquals(443, at.port());
        assertEquals("/moved", at.path());
        assertEquals("POST", at.method()); // the call is still the application's POST
    }

    @Test
    void aResponseWithoutAReadableStatusLineOnACachedConnectionIsAReset() {
        IOException unreadable = new IOException("Invalid Http response");
        assertEquals(FailureKind.RESET, HttpUrlConnectionRequests.classify(unreadable, true));
        assertEquals(FailureKind.OTHER, HttpUrlConnectionRequests.classify(unreadable, false),
                "on a new connection it is the server's answer");
        assertEquals(FailureKind.OTHER, HttpUrlConnectionRequests.classify(unreadable));
        assertEquals(FailureKind.OTHER, HttpUrlConnectionRequests.classify(
                new java.net.ProtocolException("Unexpected 101 response from server"), true), "a head was read");
        assertEquals(FailureKind.OTHER, HttpUrlConnectionRequests.classify(new IOException("something else"), true));
        assertEquals(FailureKind.TIMEOUT, HttpUrlConnectionRequests.classify(
                new java.net.SocketTimeoutException("Read timed out"), true));
    }
}
