package dev.retryagent.agent.clients.okhttp;

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
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import java.net.ProtocolException;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.MediaType;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.internal.http2.ErrorCode;
import okhttp3.internal.http2.StreamResetException;
import okio.BufferedSink;
import okio.Timeout;
import org.junit.jupiter.api.Test;

class OkHttpRequestsTest {
    @Test
    void failuresAreClassifiedAsTheContractSays() {
        assertEquals(FailureKind.CONNECT, OkHttpRequests.classify(new ConnectException("Failed to connect to /127.0.0.1:1")));
        assertEquals(FailureKind.CONNECT, OkHttpRequests.classify(new NoRouteToHostException("No route to host")));
        assertEquals(FailureKind.CONNECT, OkHttpRequests.classify(new SocketTimeoutException("Connect timed out")));
        assertEquals(FailureKind.CONNECT, OkHttpRequests.classify(new SocketTimeoutException("connect timed out")));
        assertEquals(FailureKind.TIMEOUT, OkHttpRequests.classify(new SocketTimeoutException("timeout")));
        assertEquals(FailureKind.TIMEOUT, OkHttpRequests.classify(new SocketTimeoutException("Read timed out")));
        assertEquals(FailureKind.RESET, OkHttpRequests.classify(new SocketException("Connection reset")));
        assertEquals(FailureKind.RESET, OkHttpRequests.classify(new SocketException("Broken pipe")));
        assertEquals(FailureKind.RESET, OkHttpRequests.classify(new EOFException("\\n not found: limit=0")));
        assertEquals(FailureKind.RESET, OkHttpRequests.classify(
                new IOException("unexpected end of stream on http://127.0.0.1:1/...", new EOFException())));
        assertEquals(FailureKind.RESET, OkHttpRequests.classify(new StreamResetException(ErrorCode.REFUSED_STREAM)));
        assertEquals(FailureKind.RESET, OkHttpRequests.classify(new SSLException("Connection reset", new SocketException("Connection reset"))));
        assertEquals(FailureKind.OTHER, OkHttpRequests.classify(new UnknownHostException("nowhere.invalid")));
        assertEquals(FailureKind.OTHER, OkHttpRequests.classify(new SSLHandshakeException("PKIX path building failed")));
        assertEquals(FailureKind.OTHER, OkHttpRequests.classify(new SSLException("Unrecognized SSL message")));
        assertEquals(FailureKind.OTHER, OkHttpRequests.classify(new IOException("Canceled")));
        assertEquals(FailureKind.OTHER, OkHttpRequests.classify(new InterruptedIOException("timeout")));
        assertEquals(FailureKind.OTHER, OkHttpRequests.classify(new IOException("something else")));
    }

    private static RequestBody body(boolean oneShot, boolean duplex) {
        return new RequestBody() {
            @Override
            public MediaType contentType() {
                return null;
            }

            @Override
            public void writeTo(BufferedSink sink) {
            }

            @Override
            public boolean isOneShot() {
                return oneShot;
            }

            @Override
            public boolean isDuplex() {
                return duplex;
            }
        };
    }

    @Test
    void factsComeFromTheRequestWithoutItsQuery() throws Exception {
        Policy policy = PolicyLoader.parse("version: 1\n"
                + "defaults:\n  idempotencyKeyHeaders: [Idempotency-Key, X-Request-Id]\n", "test.yaml");
        Request get = new Request.Builder().url("http://API.example:8080/v1/items?secret=1").build();
        CallFacts facts = OkHttpRequests.facts(get, engine(policy));
        assertEquals("okhttp", facts.client());
        assertEquals("GET", facts.method());
        assertEquals("http", facts.scheme());
        assertEquals("api.example", facts.host());
        assertEquals(8080, facts.port());
        assertEquals("/v1/items", facts.path());
        assertFalse(facts.idempotencyKeyPresent());
        assertTrue(facts.bodyReplayable());
        assertFalse(facts.markerPresent());

        Request post = new Request.Builder().url("https://api.example/pay")
                .header("x-request-id", "abc").header("retry-attempt", "1")
                .post(RequestBody.create("{}", MediaType.get("application/json"))).build();
        facts = OkHttpRequests.facts(post, engine(policy));
        assertEquals(443, facts.port());
        assertTrue(facts.idempotencyKeyPresent(), "header names compare case-insensitively");
        assertTrue(facts.bodyReplayable());
        assertTrue(facts.markerPresent());

        assertFalse(OkHttpRequests.facts(new Request.Builder().url("http://a/").post(body(true, false)).build(),
                engine(policy))
                .bodyReplayable());
        assertFalse(OkHttpRequests.facts(new Request.Builder().url("http://a/").post(body(false, true)).build(),
                engine(policy))
                .bodyReplayable());
    }

    @Test
    void theMarkerIsAddedOnlyWhenThereIsOne() {
        Request request = new Request.Builder().url("http://a/").build();
        assertEquals("2", new OkHttpAsyncExchange.AttemptMarker("Retry-Attempt", "2", 2, 0, null, null).apply(request)
                .header("Retry-Attempt"));
        assertEquals(request,
                new OkHttpAsyncExchange.AttemptMarker("Retry-Attempt", null, 0, 0, null, null).apply(request));
        assertEquals(request, OkHttpAsyncExchange.AttemptMarker.UNMARKED.apply(request));
        assertEquals("1", OkHttpRequests.marked(request, "Retry-Attempt", "1").header("Retry-Attempt"));
        assertSame(request, OkHttpRequests.marked(request, null, "1"));
    }
    @Test
    void aResponseIsDecidedUnderTheAddressItsRequestWentTo() {
        Request original = new Request.Builder().url("http://a.example.test/items?token=secret")
                .post(RequestBody.create(new byte[] {1}, null)).build();
        CallFacts call = OkHttpRequests.facts(original, engine(Policy.builtIn()));
        Response sameAddress = new Response.Builder().request(original.newBuilder().header("X", "y").build())
                .protocol(Protocol.HTTP_1_1).code(503).message("x").build();
        assertSame(call, OkHttpRequests.decidedUnder(call, original.url(), sameAddress));
        Request sameUrlAnotherObject = new Request.Builder().url("http://a.example.test/items?other=1").build();
        Response sameAddressAgain = new Response.Builder().request(sameUrlAnotherObject)
                .protocol(Protocol.HTTP_1_1).code(503).message("x").build();
        assertSame(call, OkHttpRequests.decidedUnder(call, original.url(), sameAddressAgain));

        Request followed = new Request.Builder().url("https://b.example.test:8443/moved?token=secret").build();
        Response redirected = new Response.Builder().request(followed).protocol(Protocol.HTTP_1_1).code(503)
                .message("x").build();
        CallFacts at = OkHttpRequests.decidedUnder(call, original.url(), redirected);
        assertEquals("https", at.scheme());
        assertEquals("b.example.test", at.host());
        assertEquals(8443, at.port());
        assertEquals("/moved", at.path()); // never the query
        assertEquals("POST", at.method()); // a retry sends the original request
        assertSame(call.policy(), at.policy());
    }

    /** An engine under {@code policy}: the facts are read under its policy. */
    private static RetryEngine engine(Policy policy) {
        return new RetryEngine(policy, Clock.SYSTEM, RandomSource.THREAD_LOCAL);
    }

    /** A connection as OkHttp leaves it after a failure: a route failure counted only if it never completed an exchange. */
    public static final class FakeConnection {
        private final int routeFailureCount;

        FakeConnection(int routeFailureCount) {
            this.routeFailureCount = routeFailureCount;
        }
    }

    /** A call that holds {@code connection}, read as OkHttp's {@code RealCall.getConnection()} is. */
    public static final class FakeCall implements Call {
        private final FakeConnection connection;

        FakeCall(FakeConnection connection) {
            this.connection = connection;
        }

        public FakeConnection getConnection() {
            return connection;
        }

        @Override public Request request() { return new Request.Builder().url("http://127.0.0.1/").build(); }
        @Override public Response execute() { throw new UnsupportedOperationException(); }
        @Override public void enqueue(Callback callback) { throw new UnsupportedOperationException(); }
        @Override public void cancel() { }
        @Override public boolean isExecuted() { return true; }
        @Override public boolean isCanceled() { return false; }
        @Override public Timeout timeout() { return Timeout.NONE; }
        @Override public Call clone() { return this; }
    }

    @Test
    void anUnreadableStatusLineOnAConnectionThatHadCompletedAnExchangeIsAReset() {
        Call reused = new FakeCall(new FakeConnection(0));
        Call fresh = new FakeCall(new FakeConnection(1));
        Call none = new FakeCall(null);
        assertTrue(OkHttpRequests.reusedConnection(reused));
        assertFalse(OkHttpRequests.reusedConnection(fresh));
        assertFalse(OkHttpRequests.reusedConnection(none));
        assertFalse(OkHttpRequests.reusedConnection(null));

        IOException garbage = new ProtocolException("Unexpected status line: this is not HTTP");
        OkHttpRequests.noteFailure(reused, garbage);
        assertEquals(FailureKind.RESET, OkHttpRequests.classify(garbage, reused));

        IOException onFresh = new ProtocolException("Unexpected status line: this is not HTTP");
        OkHttpRequests.noteFailure(fresh, onFresh);
        assertEquals(FailureKind.OTHER, OkHttpRequests.classify(onFresh, fresh), "the server's own answer");

        IOException tooManyFollowUps = new ProtocolException("Too many follow-up requests: 21");
        OkHttpRequests.noteFailure(reused, tooManyFollowUps);
        assertEquals(FailureKind.OTHER, OkHttpRequests.classify(tooManyFollowUps, reused), "not the status line");

        IOException notNoted = new ProtocolException("Unexpected status line: HTTP/1.1 OK200");
        assertEquals(FailureKind.OTHER, OkHttpRequests.classify(notNoted, reused), "only a failure noted where it happened");
    }
}
