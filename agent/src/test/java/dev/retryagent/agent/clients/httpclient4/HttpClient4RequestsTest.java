package dev.retryagent.agent.clients.httpclient4;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.agent.bootloader.runtime.NotIoFailure;
import dev.retryagent.agent.clients.KeyedGetFacts;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.Clock;
import dev.retryagent.engine.Outcome;
import dev.retryagent.engine.RandomSource;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Policy;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import javax.net.ssl.SSLHandshakeException;
import org.apache.http.ConnectionClosedException;
import org.apache.http.HttpEntityEnclosingRequest;
import org.apache.http.HttpHost;
import org.apache.http.HttpRequest;
import org.apache.http.HttpVersion;
import org.apache.http.NoHttpResponseException;
import org.apache.http.ProtocolException;
import org.apache.http.RequestLine;
import org.apache.http.client.methods.HttpGet;
import org.apache.http.client.methods.HttpPost;
import org.apache.http.client.methods.HttpRequestWrapper;
import org.apache.http.conn.ConnectTimeoutException;
import org.apache.http.message.BasicHttpRequest;
import org.apache.http.message.BasicRequestLine;
import org.apache.http.conn.ConnectionPoolTimeoutException;
import org.apache.http.conn.HttpHostConnectException;
import org.apache.http.entity.ContentType;
import org.apache.http.entity.InputStreamEntity;
import org.apache.http.entity.StringEntity;
import org.apache.http.impl.client.DefaultHttpRequestRetryHandler;
import org.apache.http.impl.execchain.ClientExecChain;
import org.apache.http.impl.execchain.RetryExec;
import org.apache.http.impl.execchain.ServiceUnavailableRetryExec;
import org.apache.http.impl.client.DefaultServiceUnavailableRetryStrategy;
import org.apache.http.message.BasicHttpResponse;
import org.apache.http.HttpClientConnection;
import org.apache.http.HttpConnectionMetrics;
import org.apache.http.impl.HttpConnectionMetricsImpl;
import org.apache.http.protocol.BasicHttpContext;
import org.apache.http.protocol.HttpContext;
import org.junit.jupiter.api.Test;

class HttpClient4RequestsTest {
    private static final RetryEngine ENGINE = new RetryEngine(Policy.builtIn(), Clock.SYSTEM, RandomSource.THREAD_LOCAL);

    @Test
    void failuresAreClassifiedByWhatARetryCouldChange() {
        assertEquals(FailureKind.CONNECT, HttpClient4Requests.classify(new ConnectException("refused")));
        assertEquals(FailureKind.CONNECT, HttpClient4Requests.classify(new HttpHostConnectException(
                new ConnectException("Connection refused"), new HttpHost("127.0.0.1", 1), new InetAddress[0])));
        assertEquals(FailureKind.CONNECT, HttpClient4Requests.classify(new ConnectTimeoutException("timed out")),
                "an InterruptedIOException, but a connect timeout");
        assertEquals(FailureKind.OTHER, HttpClient4Requests.classify(new ConnectionPoolTimeoutException("no lease")),
                "a ConnectTimeoutException subclass, but the pool's own timeout");
        assertEquals(FailureKind.TIMEOUT, HttpClient4Requests.classify(new SocketTimeoutException("Read timed out")));
        assertEquals(FailureKind.RESET, HttpClient4Requests.classify(new NoHttpResponseException("failed to respond")));
        assertEquals(FailureKind.RESET, HttpClient4Requests.classify(new ConnectionClosedException("closed")));
        assertEquals(FailureKind.RESET, HttpClient4Requests.classify(new SocketException("Connection reset")));
        assertEquals(FailureKind.RESET, HttpClient4Requests.classify(new EOFException()));
        assertEquals(FailureKind.OTHER, HttpClient4Requests.classify(new InterruptedIOException("aborted")));
        assertEquals(FailureKind.OTHER, HttpClient4Requests.classify(new UnknownHostException("nowhere")));
        assertEquals(FailureKind.OTHER, HttpClient4Requests.classify(new SSLHandshakeException("bad cert")));
        assertEquals(FailureKind.OTHER, HttpClient4Requests.classify(new NotIoFailure(new ProtocolException("bad"))));
        assertEquals(FailureKind.OTHER, HttpClient4Requests.classify(new IOException("something else")));
    }

    /** A protocol error on a connection that had carried a request before is a stale connection: a reset. */
    @Test
    void aProtocolErrorOnAReusedConnectionIsAReset() {
        NotIoFailure garbage = new NotIoFailure(new ProtocolException("The server failed to respond with a valid HTTP response"));
        assertEquals(FailureKind.RESET, HttpClient4Requests.classify(garbage, true));
        assertEquals(FailureKind.OTHER, HttpClient4Requests.classify(garbage, false), "the server's own answer");
        assertEquals(FailureKind.OTHER, HttpClient4Requests.classify(new IOException("other"), true));
        assertEquals(FailureKind.OTHER, HttpClient4Requests.classify(
                new NotIoFailure(new org.apache.http.HttpException("not a protocol error")), true));
        assertEquals(FailureKind.TIMEOUT,
                HttpClient4Requests.classify(new SocketTimeoutException("Read timed out"), true));
    }

    @Test
    void theConnectionARequestGoesOutOnIsNotedInTheContext() {
        HttpContext context = new BasicHttpContext();
        assertFalse(HttpClient4Requests.reused(context));
        HttpConnectionMetricsImpl metrics = new HttpConnectionMetricsImpl(null, null);
        HttpClientConnection connection = connectionWith(metrics);
        HttpClient4Requests.noteConnection(connection, context);
        assertFalse(HttpClient4Requests.reused(context), "no request on it yet");
        metrics.incrementRequestCount();
        HttpClient4Requests.noteConnection(connection, context);
        assertTrue(HttpClient4Requests.reused(context));
        HttpClient4Requests.noteConnection(connectionWith(null), context);
        assertFalse(HttpClient4Requests.reused(context), "a connection without metrics counts as fresh");
        assertFalse(HttpClient4Requests.reused(null));
    }

    private static HttpClientConnection connectionWith(HttpConnectionMetrics metrics) {
        return (HttpClientConnection) java.lang.reflect.Proxy.newProxyInstance(
                HttpClient4RequestsTest.class.getClassLoader(),
                new Class<?>[] {HttpClientConnection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getMetrics")) {
                        if (metrics == null) {
                            throw new IllegalStateException("released"); // as a pooled proxy let go of
                        }
                        return metrics;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void factsNameTheTargetThePathWithoutQueryAndTheHeadersThatMatter() {
        HttpGet get = new HttpGet(KeyedGetFacts.URL);
        get.addHeader("idempotency-key", "k");
        CallFacts facts = HttpClient4Requests.facts(HttpRequestWrapper.wrap(get),
                new HttpHost("api.internal", -1, "http"), true, ENGINE);
        KeyedGetFacts.assertFacts("apache-httpclient4", facts);

        HttpPost post = new HttpPost("https://a.internal:8443/");
        post.addHeader("Retry-Attempt", "2");
        CallFacts nested = HttpClient4Requests.facts(post, new HttpHost("a.internal", -1, "HTTPS"), false, ENGINE);
        assertEquals(443, nested.port(), "the default port of the scheme when the target has none");
        assertEquals("/", nested.path());
        assertTrue(nested.markerPresent());
        assertFalse(nested.bodyReplayable());
    }

    @Test
    void pathsOfOriginAndAbsoluteRequestTargets() {
        assertEquals("/a/b", HttpClient4Requests.pathOf("/a/b?token=x"));
        assertEquals("/a/b", HttpClient4Requests.pathOf("http://h:1/a/b?token=x#f"));
        assertEquals("/", HttpClient4Requests.pathOf("http://h:1"));
        assertEquals("/", HttpClient4Requests.pathOf("*"));
        assertEquals("/", HttpClient4Requests.pathOf(""));
        assertEquals("/", HttpClient4Requests.pathOf(null));
        assertEquals("/", HttpClient4Requests.pathOf("/?q"));
    }

    @Test
    void thePathFromTheRequestsUriIsThePathOfItsRequestLine() throws Exception {
        String[] uris = {"http://h:1/a/b?token=x#f", "http://h", "https://h/", "/a/b?q", "/a;p/b", "a/b", "", "//h/a",
            "http://h/caf%C3%A9", "http://h/caf\u00e9?x", "/caf\u00e9", "http://h/a%2Fb", "mailto:a@h"};
        for (String uri : uris) {
            HttpGet get = new HttpGet(new java.net.URI(uri));
            String expected = HttpClient4Requests.pathOf(get.getRequestLine().getUri());
            assertEquals(expected, HttpClient4Requests.pathOfUri(get), uri);
            HttpRequestWrapper wrapper = HttpRequestWrapper.wrap(get);
            assertEquals(expected, HttpClient4Requests.pathOfUri(wrapper), uri);
            assertEquals(expected, HttpClient4Requests.facts(wrapper, new HttpHost("h"), true, ENGINE).path(), uri);
        }
        // A wrapper of a request that is not an HttpUriRequest has no URI of its own: its original's request line.
        HttpRequestWrapper raw = HttpRequestWrapper.wrap(new BasicHttpRequest("DELETE", "http://h/x/y?z"));
        assertEquals("/x/y", HttpClient4Requests.pathOfUri(raw));
        assertEquals("DELETE", HttpClient4Requests.facts(raw, new HttpHost("h"), true, ENGINE).method());
    }

    @Test
    void aRequestWithARequestLineOfItsOwnIsReadByItsRequestLine() {
        HttpGet own = new HttpGet("http://h/by-uri") {
            @Override
            public RequestLine getRequestLine() {
                return new BasicRequestLine("HEAD", "/by-line?q", HttpVersion.HTTP_1_1);
            }
        };
        CallFacts facts = HttpClient4Requests.facts(own, new HttpHost("h"), true, ENGINE);
        assertEquals("HEAD", facts.method());
        assertEquals("/by-line", facts.path());
    }

    @Test
    void onlyBodiesThatCanBeWrittenAgainAreReplayable() {
        assertTrue(HttpClient4Requests.isRepeatable(new HttpGet("http://h/")));
        HttpPost post = new HttpPost("http://h/");
        assertTrue(HttpClient4Requests.isRepeatable(post), "no entity");
        post.setEntity(new StringEntity("x", ContentType.TEXT_PLAIN));
        assertTrue(HttpClient4Requests.isRepeatable(post));
        assertTrue(HttpClient4Requests.isRepeatable(HttpRequestWrapper.wrap(post)));
        post.setEntity(new InputStreamEntity(new ByteArrayInputStream(new byte[1]), -1));
        assertFalse(HttpClient4Requests.isRepeatable(post));
        assertFalse(HttpClient4Requests.isRepeatable(HttpRequestWrapper.wrap(post)));
    }

    @Test
    void outcomeIsTheStatusAndRetryAfter() {
        BasicHttpResponse response = new BasicHttpResponse(HttpVersion.HTTP_1_1, 503, "busy");
        response.addHeader("Retry-After", "2");
        Outcome outcome = HttpClient4Requests.outcome(response);
        assertEquals(503, outcome.status());
        assertEquals("2", outcome.retryAfter());
    }

    /** An async attempt sends a copy: the application's request keeps its headers, the body is the same entity. */
    @Test
    void anAsyncAttemptSendsACopyWithTheMarker() {
        HttpPost post = new HttpPost("http://h:1/pay?x=1");
        post.addHeader("Idempotency-Key", "k");
        StringEntity entity = new StringEntity("payload", ContentType.TEXT_PLAIN);
        post.setEntity(entity);
        HttpRequest copy = HttpClient4Requests.copy(post, "Retry-Attempt", "2");
        assertNotSame(post, copy);
        assertEquals("POST", copy.getRequestLine().getMethod());
        assertEquals(post.getRequestLine().getUri(), copy.getRequestLine().getUri());
        assertEquals("k", copy.getFirstHeader("Idempotency-Key").getValue());
        assertEquals("2", copy.getFirstHeader("Retry-Attempt").getValue());
        assertSame(entity, ((HttpEntityEnclosingRequest) copy).getEntity());
        assertNull(post.getFirstHeader("Retry-Attempt"), "the application's request is left as it was");
        assertNull(HttpClient4Requests.copy(new HttpGet("http://h/"), "Retry-Attempt", null)
                .getFirstHeader("Retry-Attempt"), "no marker for a call the agent will not retry");

        HttpGet get = new HttpGet("http://h:1/caf\u00e9?q=1");
        get.setProtocolVersion(HttpVersion.HTTP_1_0);
        HttpRequest getCopy = HttpClient4Requests.copy(get, "Retry-Attempt", "1");
        assertEquals(get.getRequestLine().toString(), getCopy.getRequestLine().toString());
        assertSame(get.getURI(), ((org.apache.http.client.methods.HttpUriRequest) getCopy).getURI(),
                "the client reads the copy's URI as it would the original's");
        assertEquals("1", getCopy.getFirstHeader("Retry-Attempt").getValue());

        HttpRequest rawCopy = HttpClient4Requests.copy(new BasicHttpRequest("GET", "/raw?x"), "Retry-Attempt", "1");
        assertEquals("GET /raw?x HTTP/1.1", rawCopy.getRequestLine().toString());
    }

    @Test
    void theRetryElementsAreSkippedToTheElementTheyWrap() throws Exception {
        ClientExecChain inner = (route, request, context, execAware) -> null;
        assertSame(inner, HttpClient4Requests.next(new RetryExec(inner, new DefaultHttpRequestRetryHandler())));
        assertSame(inner, HttpClient4Requests.next(new ServiceUnavailableRetryExec(inner,
                new DefaultServiceUnavailableRetryStrategy())));
        assertNull(HttpClient4Requests.next(inner), "not a retry element: no such field, the element runs (fail open)");
    }
}
