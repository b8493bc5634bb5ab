package dev.retryagent.agent.clients.httpclient5;

import dev.retryagent.agent.bootloader.runtime.NotIoFailure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.clients.KeyedGetFacts;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.Clock;
import dev.retryagent.engine.RandomSource;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.engine.Outcome;
import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Policy;
import java.io.ByteArrayInputStream;
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
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.HttpHostConnectException;
import org.apache.hc.client5.http.impl.classic.RequestFailedException;
import org.apache.hc.core5.http.ConnectionClosedException;
import org.apache.hc.core5.http.RequestNotExecutedException;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.EndpointDetails;
import org.apache.hc.core5.http.MessageConstraintException;
import org.apache.hc.core5.http.ParseException;
import org.apache.hc.core5.http.protocol.HttpCoreContext;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.NoHttpResponseException;
import org.apache.hc.core5.http.ProtocolException;
import org.apache.hc.core5.http.io.entity.InputStreamEntity;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;
import org.apache.hc.core5.http.message.BasicHttpResponse;
import org.junit.jupiter.api.Test;

class HttpClient5RequestsTest {
    private static final RetryEngine ENGINE = engine(Policy.builtIn());
    /** An engine under {@code policy}: the facts are read under its policy. */
    private static RetryEngine engine(Policy policy) {
        return new RetryEngine(policy, Clock.SYSTEM, RandomSource.THREAD_LOCAL);
    }


    @Test
    void failuresAreClassifiedByWhatARetryCouldChange() {
        assertEquals(FailureKind.CONNECT, HttpClient5Requests.classify(new ConnectException("refused")));
        assertEquals(FailureKind.CONNECT, HttpClient5Requests.classify(
                new HttpHostConnectException("Connect to http://127.0.0.1:1 failed: Connection refused")));
        assertEquals(FailureKind.CONNECT, HttpClient5Requests.classify(new NoRouteToHostException()));
        assertEquals(FailureKind.CONNECT,
                HttpClient5Requests.classify(new ConnectTimeoutException("Connect timed out")));
        assertEquals(FailureKind.CONNECT,
                HttpClient5Requests.classify(new SocketTimeoutException("Connect timed out")));
        assertEquals(FailureKind.TIMEOUT, HttpClient5Requests.classify(new SocketTimeoutException("Read timed out")));
        assertEquals(FailureKind.TIMEOUT, HttpClient5Requests.classify(new SocketTimeoutException("5 SECONDS")));
        assertEquals(FailureKind.RESET, HttpClient5Requests.classify(new SocketException("Connection reset")));
        assertEquals(FailureKind.RESET, HttpClient5Requests.classify(new NoHttpResponseException("failed to respond")));
        assertEquals(FailureKind.RESET, HttpClient5Requests.classify(new ConnectionClosedException("closed")));
        assertEquals(FailureKind.RESET, HttpClient5Requests.classify(new RequestNotExecutedException()));
        assertEquals(FailureKind.RESET, HttpClient5Requests.classify(new EOFException()));
        assertEquals(FailureKind.RESET,
                HttpClient5Requests.classify(new SSLException("cut", new SocketException("reset"))));
        assertEquals(FailureKind.OTHER, HttpClient5Requests.classify(new SSLHandshakeException("bad certificate")));
        assertEquals(FailureKind.OTHER, HttpClient5Requests.classify(new SSLException("bad record")));
        assertEquals(FailureKind.OTHER, HttpClient5Requests.classify(new UnknownHostException("nowhere")));
        assertEquals(FailureKind.OTHER, HttpClient5Requests.classify(new RequestFailedException("Request aborted")));
        assertEquals(FailureKind.OTHER, HttpClient5Requests.classify(new InterruptedIOException()));
        assertEquals(FailureKind.OTHER, HttpClient5Requests.classify(new IOException("something else")));
        ProtocolException protocol = new ProtocolException("bad");
        IOException carried = new NotIoFailure(protocol);
        assertEquals(FailureKind.OTHER, HttpClient5Requests.classify(carried));
        assertSame(protocol, NotIoFailure.unwrap(carried));
    }

    @Test
    void factsNameTheTargetThePathWithoutQueryAndTheHeadersThatMatter() {
        CallFacts facts = HttpClient5Requests.facts(ClassicRequestBuilder.get(KeyedGetFacts.URL)
                        .addHeader("idempotency-key", "k1").build(),
                new HttpHost("http", "API.internal", -1), true, ENGINE);
        KeyedGetFacts.assertFacts("apache-httpclient5", facts);
        assertTrue(facts.bodyReplayable());

        CallFacts nested = HttpClient5Requests.facts(ClassicRequestBuilder.post("https://a.internal:8443/")
                        .addHeader("retry-attempt", "1").build(),
                new HttpHost("https", "a.internal", -1), false, ENGINE);
        assertEquals(443, nested.port(), "the default port of the scheme when the target has none");
        assertTrue(nested.markerPresent());
        assertFalse(nested.bodyReplayable());
    }

    @Test
    void onlyARepeatableEntityIsReplayable() {
        assertTrue(ClassicRetryHandler.isRepeatable(ClassicRequestBuilder.get("http://a/").build()));
        assertTrue(ClassicRetryHandler.isRepeatable(ClassicRequestBuilder.post("http://a/")
                .setEntity(new StringEntity("body")).build()));
        assertFalse(ClassicRetryHandler.isRepeatable(ClassicRequestBuilder.post("http://a/")
                .setEntity(new InputStreamEntity(new ByteArrayInputStream(new byte[3]), -1, ContentType.TEXT_PLAIN))
                .build()));
    }

    @Test
    void theOutcomeCarriesStatusAndRetryAfter() {
        BasicHttpResponse response = new BasicHttpResponse(429);
        response.addHeader("Retry-After", "3");
        Outcome outcome = HttpClient5Requests.outcome(response);
        assertEquals(429, outcome.status());
        assertEquals("3", outcome.retryAfter());
        assertNull(HttpClient5Requests.outcome(new BasicHttpResponse(200)).retryAfter());
    }

    /** The context as HttpCore leaves it after an attempt: the connection's counters as {@code EndpointDetails}. */
    private static HttpClientContext contextOnConnection(long requests, long responses) {
        HttpClientContext context = HttpClientContext.create();
        context.setAttribute(HttpCoreContext.CONNECTION_ENDPOINT, new EndpointDetails(null, null, null) {
            @Override
            public long getRequestCount() {
                return requests;
            }

            @Override
            public long getResponseCount() {
                return responses;
            }

            @Override
            public long getSentBytesCount() {
                return 0;
            }

            @Override
            public long getReceivedBytesCount() {
                return 0;
            }
        });
        return context;
    }

    @Test
    void aProtocolErrorOnAReusedConnectionBeforeItsHeadIsAReset() {
        IOException parse = new NotIoFailure(new ParseException("Invalid protocol version", "garbage", 0, 7, 0));
        IOException protocol = new NotIoFailure(new ProtocolException("Invalid response"));
        // the second request on the connection, no response head for it yet: stale
        assertEquals(FailureKind.RESET, HttpClient5Requests.classify(parse, contextOnConnection(2, 1)));
        assertEquals(FailureKind.RESET, HttpClient5Requests.classify(protocol, contextOnConnection(5, 4)));
        // the first request on a fresh connection: the server's own answer
        assertEquals(FailureKind.OTHER, HttpClient5Requests.classify(parse, contextOnConnection(1, 0)));
        // the head of this attempt had been read (a bad header after it): not before the head
        assertEquals(FailureKind.OTHER, HttpClient5Requests.classify(protocol, contextOnConnection(2, 2)));
        // nothing known about the connection
        assertEquals(FailureKind.OTHER, HttpClient5Requests.classify(parse, HttpClientContext.create()));
        assertEquals(FailureKind.OTHER, HttpClient5Requests.classify(parse, null));
        // not a protocol error: the application's own exception, an unknown host, TLS
        assertEquals(FailureKind.OTHER, HttpClient5Requests.classify(
                new NotIoFailure(new IllegalStateException("app")), contextOnConnection(2, 1)));
        assertEquals(FailureKind.OTHER, HttpClient5Requests.classify(new UnknownHostException("x.invalid"),
                contextOnConnection(2, 1)));
        assertEquals(FailureKind.OTHER, HttpClient5Requests.classify(new SSLException("bad record MAC"),
                contextOnConnection(2, 1)));
        assertEquals(FailureKind.OTHER, HttpClient5Requests.classify(new InterruptedIOException("aborted"),
                contextOnConnection(2, 1)));
    }

    @Test
    void aResponseHeadPastTheClientsLimitsIsAResetOnAnyConnection() {
        // the client's own strategy resends an idempotent request after it, fresh connection or not
        IOException garbage = new MessageConstraintException("Maximum empty line limit exceeded");
        assertEquals(FailureKind.RESET, HttpClient5Requests.classify(garbage));
        assertEquals(FailureKind.RESET, HttpClient5Requests.classify(garbage, contextOnConnection(1, 0)));
        assertEquals(FailureKind.RESET, HttpClient5Requests.classify(garbage, contextOnConnection(2, 1)));
    }
}
