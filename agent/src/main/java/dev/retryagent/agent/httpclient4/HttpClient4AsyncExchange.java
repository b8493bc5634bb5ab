package dev.retryagent.agent.httpclient4;

import dev.retryagent.agent.bootstrap.Hooks;
import dev.retryagent.agent.bootstrap.NotIoFailure;
import dev.retryagent.agent.bootstrap.RetryRuntime;
import dev.retryagent.engine.AsyncAttempt;
import dev.retryagent.engine.AsyncExchange;
import dev.retryagent.engine.AsyncRetryLoop;
import dev.retryagent.engine.AttemptCallback;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.Outcome;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.FailureKind;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.concurrent.Future;
import org.apache.http.HttpConnection;
import org.apache.http.HttpConnectionMetrics;
import org.apache.http.HttpEntity;
import org.apache.http.HttpEntityEnclosingRequest;
import org.apache.http.HttpException;
import org.apache.http.HttpHost;
import org.apache.http.HttpRequest;
import org.apache.http.HttpResponse;
import org.apache.http.client.methods.Configurable;
import org.apache.http.client.methods.HttpEntityEnclosingRequestBase;
import org.apache.http.client.methods.HttpRequestBase;
import org.apache.http.client.methods.HttpUriRequest;
import org.apache.http.client.protocol.HttpClientContext;
import org.apache.http.concurrent.BasicFuture;
import org.apache.http.concurrent.FutureCallback;
import org.apache.http.impl.nio.client.CloseableHttpAsyncClient;
import org.apache.http.message.BasicHttpEntityEnclosingRequest;
import org.apache.http.message.BasicHttpRequest;
import org.apache.http.nio.ContentDecoder;
import org.apache.http.nio.ContentEncoder;
import org.apache.http.nio.IOControl;
import org.apache.http.nio.protocol.HttpAsyncRequestProducer;
import org.apache.http.nio.protocol.HttpAsyncResponseConsumer;
import org.apache.http.protocol.HttpContext;
import org.apache.http.protocol.HttpCoreContext;

/**
 * HttpAsyncClient 4.1 calls, retried by the shared {@link AsyncRetryLoop}. The application gets a future of the
 * agent's ({@link CallFuture}) at once; each attempt is the client's own {@code execute(producer, consumer, context,
 * callback)} with the agent's {@link Attempt} as consumer and callback, and the application's producer behind an
 * {@link AttemptProducer}, which sends a copy of the request with the marker set (the application's request object
 * stays as it was).
 *
 * <p>An attempt is reported to the loop when its response head arrives ({@code responseReceived}, on an I/O reactor
 * thread): the loop delivers it (from then on the application's consumer receives the head, the body and the end,
 * and the future completes with its result) or retries it (the body is read and dropped, so the connection goes
 * back to the pool). A retry is scheduled on the agent's scheduler thread, never waited for on a reactor thread,
 * and starts once the attempt before it has finished (its connection released), from that completion if the wait
 * was shorter. Cancelling the future cancels the attempt in flight, and no further attempt starts.
 */
final class HttpClient4AsyncExchange {
    private HttpClient4AsyncExchange() {
    }

    /**
     * {@code execute(producer, consumer, context, callback)} of an async client: the future of the call, retried; or
     * {@link Hooks#PROCEED} to let the client run it untouched (one of the agent's own attempts, the agent is not
     * running, or something about the call is not understood).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Object execute(CloseableHttpAsyncClient client, HttpAsyncRequestProducer producer,
                          HttpAsyncResponseConsumer<?> consumer, HttpContext context, FutureCallback<?> callback) {
        if (consumer instanceof Attempt || callback instanceof Attempt.Result) {
            return Hooks.PROCEED; // an attempt of a call the loop runs
        }
        AsyncRetryLoop loop = RetryRuntime.asyncLoop();
        RetryEngine engine = RetryRuntime.engine();
        if (loop == null || engine == null || client == null || producer == null || consumer == null) {
            return Hooks.PROCEED;
        }
        Call call;
        CallFacts facts;
        try {
            HttpHost target = producer.getTarget();
            HttpRequest request = producer.generateRequest();
            if (target == null || request == null) {
                return Hooks.PROCEED;
            }
            facts = HttpClient4Requests.facts(request, target, producer.isRepeatable(), engine);
            call = new Call(client, producer, (HttpAsyncResponseConsumer) consumer, contextFor(request, context),
                    (FutureCallback) callback, facts.policy().markerHeader());
        } catch (IOException e) {
            return Hooks.PROCEED; // the client asks the producer again and reports its failure itself
        } catch (HttpException e) {
            return Hooks.PROCEED;
        } catch (RuntimeException e) {
            RetryLog.internalError("apache-httpclient4.async", e);
            return Hooks.PROCEED;
        }
        try {
            loop.execute(facts, call, call.delivery());
        } catch (RuntimeException e) {
            // The first attempt could not start (a client not started, or closed): the client's own exception, as
            // without the agent. The loop catches its own errors.
            throw new Hooks.Propagate(e);
        }
        return call.future;
    }

    /**
     * One context for the whole call (the client would make one per attempt without it), carrying the request's own
     * {@code RequestConfig}: the attempts send copies of the request, which do not.
     */
    private static HttpContext contextFor(HttpRequest request, HttpContext context) {
        HttpClientContext clientContext = HttpClientContext.adapt(context != null ? context : HttpClientContext.create());
        if (request instanceof Configurable && ((Configurable) request).getConfig() != null) {
            clientContext.setRequestConfig(((Configurable) request).getConfig());
        }
        return clientContext;
    }

    /** A copy of {@code request} (same request line, headers and entity) with the marker set. */
    static HttpRequest copy(HttpRequest request, String markerHeader, String marker) {
        HttpRequest copy;
        URI uri = HttpClient4Requests.requestLineFromUri(request) ? ((HttpUriRequest) request).getURI() : null;
        if (uri != null) {
            // The request line of the original, made the same way: the client takes the URI from the copy as it
            // would from the original, instead of parsing the request line's again.
            HttpUriRequest original = (HttpUriRequest) request;
            HttpRequestBase uriCopy = request instanceof HttpEntityEnclosingRequest
                    ? new UriCopyWithBody(original.getMethod(), ((HttpEntityEnclosingRequest) request).getEntity())
                    : new UriCopy(original.getMethod());
            uriCopy.setURI(uri);
            uriCopy.setProtocolVersion(original.getProtocolVersion());
            copy = uriCopy;
        } else if (request instanceof HttpEntityEnclosingRequest) {
            BasicHttpEntityEnclosingRequest withBody = new BasicHttpEntityEnclosingRequest(request.getRequestLine());
            withBody.setEntity(((HttpEntityEnclosingRequest) request).getEntity());
            copy = withBody;
        } else {
            copy = new BasicHttpRequest(request.getRequestLine());
        }
        copy.setHeaders(request.getAllHeaders());
        if (markerHeader != null && marker != null) {
            copy.setHeader(markerHeader, marker);
        }
        return copy;
    }

    /** {@link #copy} of a request without body. */
    static final class UriCopy extends HttpRequestBase {
        private final String method;

        UriCopy(String method) {
            this.method = method;
        }

        @Override
        public String getMethod() {
            return method;
        }
    }

    /** {@link #copy} of a request with a body. */
    static final class UriCopyWithBody extends HttpEntityEnclosingRequestBase {
        private final String method;

        UriCopyWithBody(String method, HttpEntity entity) {
            this.method = method;
            setEntity(entity);
        }

        @Override
        public String getMethod() {
            return method;
        }
    }

    /** Whether the connection in {@code context} has sent more than one request, the one just sent included. */
    static boolean connectionReused(HttpContext context) {
        try {
            Object connection = context == null ? null : context.getAttribute(HttpCoreContext.HTTP_CONNECTION);
            if (!(connection instanceof HttpConnection)) {
                return false;
            }
            HttpConnectionMetrics metrics = ((HttpConnection) connection).getMetrics();
            return metrics != null && metrics.getRequestCount() > 1;
        } catch (RuntimeException e) {
            return false; // a pooled connection already let go of: counts as fresh
        }
    }

    /** The future the application holds: cancelling it cancels the attempt in flight. */
    static final class CallFuture<T> extends BasicFuture<T> {
        private volatile Call<T> call;

        CallFuture(FutureCallback<T> callback) {
            super(callback);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            Call<T> c = call;
            if (cancelled && c != null) {
                c.cancelInFlight();
            }
            return cancelled;
        }
    }

    /** A response head as the loop sees it; the body is still to come. */
    static final class Head {
        final HttpResponse response;
        /** Where the request that got this response went (the last hop of the redirects the client followed). */
        final HttpHost target;
        final HttpRequest sent;

        Head(HttpResponse response, HttpHost target, HttpRequest sent) {
            this.response = response;
            this.target = target;
            this.sent = sent;
        }
    }

    /** One async call across its attempts. */
    static final class Call<T> implements AsyncExchange<Head> {
        private final CloseableHttpAsyncClient client;
        private final HttpAsyncRequestProducer producer;
        private final HttpAsyncResponseConsumer<T> consumer;
        final HttpContext context;
        private final String markerHeader;
        final CallFuture<T> future;
        /** The attempt sent last. */
        private volatile Attempt<T> last;

        Call(CloseableHttpAsyncClient client, HttpAsyncRequestProducer producer, HttpAsyncResponseConsumer<T> consumer,
             HttpContext context, FutureCallback<T> callback, String markerHeader) {
            this.client = client;
            this.producer = producer;
            this.consumer = consumer;
            this.context = context;
            this.markerHeader = markerHeader;
            this.future = new CallFuture<T>(callback);
            this.future.call = this;
        }

        Delivery delivery() {
            return new Delivery();
        }

        @Override
        public void send(int attempt, int scope, String marker, AsyncAttempt<Head> handle) {
            Attempt<T> current = new Attempt<T>(this, handle);
            last = current;
            if (attempt == 1) {
                start(current, marker); // the application's own call, on its thread
                return;
            }
            // A retry that cannot start ends as that attempt's failure: the loop hears of it, the call ends.
            try {
                producer.resetRequest(); // rewinds a repeatable producer, as the client does itself
                start(current, marker);
            } catch (IOException e) {
                current.ended(e);
            } catch (RuntimeException e) {
                current.ended(e);
            }
        }

        private void start(Attempt<T> current, String marker) {
            Future<T> inFlight = client.execute(new AttemptProducer(producer, markerHeader, marker, current), current,
                    context, current.result());
            current.inFlight = inFlight;
            if (isCancelled()) {
                inFlight.cancel(true);
            }
        }

        void cancelInFlight() {
            Attempt<T> current = last;
            Future<T> inFlight = current == null ? null : current.inFlight;
            if (inFlight != null) {
                inFlight.cancel(true);
            }
        }

        @Override
        public Outcome outcome(Head head) {
            return HttpClient4Requests.outcome(head.response);
        }

        /** A response from another address than the call's, after redirects: decided under that address's rule. */
        @Override
        public CallFacts decidedUnder(CallFacts call, Head head) {
            if (head.target == null || head.sent == null) {
                return call;
            }
            return HttpClient4Requests.redirectedTo(call, head.target, head.sent);
        }

        @Override
        public FailureKind classify(IOException failure) {
            Attempt<T> current = last;
            return isCancelled() ? FailureKind.OTHER
                    : HttpClient4Requests.classify(failure, current != null && current.reused);
        }

        /** Nothing to do here: a head that is not delivered has its body read and dropped by its attempt. */
        @Override
        public void discard(Head head) {
        }

        @Override
        public boolean isCancelled() {
            return future.isCancelled();
        }

        /** The loop's final answer, to the application's consumer and future. */
        final class Delivery implements AttemptCallback<Head> {
            @Override
            public void onResponse(Head head) {
                // nothing yet: the attempt hands the head on to the application's consumer (AsyncAttempt#arrived)
            }

            @Override
            public void onFailure(IOException failure) {
                Exception cause = NotIoFailure.unwrap(failure);
                try {
                    producer.failed(cause);
                    consumer.failed(cause);
                } finally {
                    try {
                        consumer.close();
                    } catch (IOException e) {
                        // nothing more to release
                    }
                    future.failed(cause);
                }
            }
        }

        HttpAsyncResponseConsumer<T> consumer() {
            return consumer;
        }
    }

    /** The application's producer, generating a copy of its request with the marker set. */
    static final class AttemptProducer implements HttpAsyncRequestProducer {
        private final HttpAsyncRequestProducer producer;
        private final String markerHeader;
        private final String marker;
        private final Attempt<?> attempt;

        AttemptProducer(HttpAsyncRequestProducer producer, String markerHeader, String marker, Attempt<?> attempt) {
            this.producer = producer;
            this.markerHeader = markerHeader;
            this.marker = marker;
            this.attempt = attempt;
        }

        @Override
        public HttpHost getTarget() {
            return producer.getTarget();
        }

        @Override
        public HttpRequest generateRequest() throws IOException, HttpException {
            return copy(producer.generateRequest(), markerHeader, marker);
        }

        @Override
        public void produceContent(ContentEncoder encoder, IOControl ioControl) throws IOException {
            producer.produceContent(encoder, ioControl);
        }

        @Override
        public void requestCompleted(HttpContext context) {
            // The request is on the wire and its connection still leased: had it carried a request before this one?
            attempt.reused = connectionReused(context);
            producer.requestCompleted(context);
        }

        /** Passed on for the attempt the application sees; the call's final failure is passed on by the loop's delivery. */
        @Override
        public void failed(Exception ex) {
            if (attempt.delivered()) {
                producer.failed(ex);
            }
        }

        @Override
        public boolean isRepeatable() {
            return producer.isRepeatable();
        }

        @Override
        public void resetRequest() throws IOException {
            producer.resetRequest();
        }

        @Override
        public void close() throws IOException {
            producer.close(); // a repeatable producer opens its content again when asked for it
        }
    }

    /** One attempt: the response consumer the client is given, and its result callback ({@link Result}). */
    static final class Attempt<T> implements HttpAsyncResponseConsumer<T> {
        private final Call<T> call;
        private final AsyncAttempt<Head> handle;
        private volatile boolean drained;
        volatile Future<T> inFlight;
        /** Whether this attempt's request went out on a connection that had carried one before. */
        volatile boolean reused;
        private ByteBuffer sink;

        Attempt(Call<T> call, AsyncAttempt<Head> handle) {
            this.call = call;
            this.handle = handle;
        }

        /** Whether the loop gave this attempt's response to the application. */
        boolean delivered() {
            return handle.delivered();
        }

        // ---- the consumer ----

        @Override
        public void responseReceived(HttpResponse response) throws IOException, HttpException {
            // The client follows redirects inside one attempt, and notes the hop it sends in the context.
            Object target = call.context.getAttribute(HttpCoreContext.HTTP_TARGET_HOST);
            Object sent = call.context.getAttribute(HttpCoreContext.HTTP_REQUEST);
            if (handle.arrived(new Head(response, target instanceof HttpHost ? (HttpHost) target : null,
                    sent instanceof HttpRequest ? (HttpRequest) sent : null))) { // the loop delivers the head or retries
                call.consumer().responseReceived(response); // the loop's final answer
            }
        }

        @Override
        public void consumeContent(ContentDecoder decoder, IOControl ioControl) throws IOException {
            if (delivered()) {
                call.consumer().consumeContent(decoder, ioControl);
                return;
            }
            if (sink == null) {
                sink = ByteBuffer.allocate(4096);
            }
            while (decoder.read(sink) > 0) {
                sink.clear(); // a response that will not be delivered: read to its end, so its connection is reused
            }
            sink.clear();
        }

        @Override
        public void responseCompleted(HttpContext context) {
            if (delivered()) {
                call.consumer().responseCompleted(context);
            } else {
                drained = true;
            }
        }

        @Override
        public void failed(Exception ex) {
            if (delivered()) {
                call.consumer().failed(ex);
                return;
            }
            // the callback below hears of it too, and reports it to the loop
        }

        @Override
        public Exception getException() {
            return delivered() ? call.consumer().getException() : null;
        }

        @Override
        public T getResult() {
            return delivered() ? call.consumer().getResult() : null;
        }

        @Override
        public boolean isDone() {
            return delivered() ? call.consumer().isDone() : drained;
        }

        @Override
        public boolean cancel() {
            return delivered() && call.consumer().cancel();
        }

        @Override
        public void close() throws IOException {
            if (delivered()) {
                call.consumer().close();
            }
        }

        /** The result callback the client is given with this attempt. */
        FutureCallback<T> result() {
            return new Result();
        }

        /** The client's callback for this attempt: a class of its own, since both interfaces have {@code failed}. */
        final class Result implements FutureCallback<T> {
            @Override
            public void completed(T result) {
                if (delivered()) {
                    call.future.completed(result);
                    return;
                }
                // A discarded response read to its end: its connection was released before this callback.
                handle.finished();
            }

            @Override
            public void failed(Exception cause) {
                if (delivered()) {
                    call.future.failed(cause);
                    return;
                }
                ended(cause);
            }

            @Override
            public void cancelled() {
                if (delivered()) {
                    call.future.cancel(true);
                    return;
                }
                ended(new InterruptedIOException("retry-agent: the attempt was cancelled"));
            }
        }

        /** This attempt failed: before its response head, that is its end; after a discarded head, its body's. */
        void ended(Exception cause) {
            handle.failed(cause instanceof IOException ? (IOException) cause : new NotIoFailure(cause));
        }
    }
}
