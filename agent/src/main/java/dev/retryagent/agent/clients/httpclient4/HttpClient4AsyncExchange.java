package dev.retryagent.agent.clients.httpclient4;

import dev.retryagent.agent.bootloader.runtime.Closeables;
import dev.retryagent.agent.bootloader.runtime.Failures;
import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.runtime.NotIoFailure;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.engine.AsyncAttempt;
import dev.retryagent.engine.AsyncExchange;
import dev.retryagent.engine.AsyncRetryLoop;
import dev.retryagent.engine.CallCompletion;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.Outcome;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import java.io.IOException;
import java.util.concurrent.Future;
import org.apache.http.HttpException;
import org.apache.http.HttpHost;
import org.apache.http.HttpRequest;
import org.apache.http.HttpResponse;
import org.apache.http.client.config.RequestConfig;
import org.apache.http.client.methods.Configurable;
import org.apache.http.client.protocol.HttpClientContext;
import org.apache.http.concurrent.BasicFuture;
import org.apache.http.concurrent.FutureCallback;
import org.apache.http.impl.nio.client.CloseableHttpAsyncClient;
import org.apache.http.nio.protocol.HttpAsyncRequestProducer;
import org.apache.http.nio.protocol.HttpAsyncResponseConsumer;
import org.apache.http.protocol.HttpContext;

/**
 * One HttpAsyncClient 4.1 call across its attempts, as the shared {@link AsyncRetryLoop} sees it, and the entry point
 * that runs it. The application gets a future of the agent's ({@link CallFuture}) at once; each attempt is the
 * client's own {@code execute(producer, consumer, context, callback)} with the agent's {@link HttpClient4AsyncAttempt}
 * as consumer and callback, and the application's producer behind an {@link HttpClient4AsyncAttempt.Producer}, which
 * sends a copy of the request with the marker set (the application's request object stays as it was).
 *
 * <p>An attempt is reported to the loop when its response head arrives ({@code responseReceived}, on an I/O reactor
 * thread): the loop delivers it (from then on the application's consumer receives the head, the body and the end,
 * and the future completes with its result) or retries it (the body is read and dropped, so the connection goes
 * back to the pool). A retry is scheduled on the agent's scheduler thread, never waited for on a reactor thread,
 * and starts once the attempt before it has finished (its connection released), from that completion if the wait
 * was shorter. Cancelling the future cancels the attempt in flight, and no further attempt starts.
 */
final class HttpClient4AsyncExchange<T> implements AsyncExchange<HttpClient4AsyncExchange.Head> {
    private final CloseableHttpAsyncClient client;
    private final HttpAsyncRequestProducer producer;
    private final HttpAsyncResponseConsumer<T> consumer;
    final HttpContext context;
    private final String markerHeader;
    final CallFuture<T> future;
    /** The attempt sent last. */
    private volatile HttpClient4AsyncAttempt<T> last;

    HttpClient4AsyncExchange(CloseableHttpAsyncClient client, HttpAsyncRequestProducer producer,
                             HttpAsyncResponseConsumer<T> consumer, HttpContext context, FutureCallback<T> callback,
                             String markerHeader) {
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

    /** The context's own {@code RequestConfig} attribute (null included) while an attempt runs with a bounded one. */
    private volatile Object ownConfig;
    /** The context holds a config of the agent's, to be replaced by {@link #ownConfig} when the attempt ends. */
    private volatile boolean bounding;
    /** The attempt in flight runs with a socket timeout the agent shortened to its limit. */
    private volatile boolean shortened;

    /**
     * Attempt {@code attempt} with the call's {@code RequestConfig} bounded by {@code limitMillis} on the call's
     * context, where the client reads it when it prepares the attempt: the request's own, else the context's, else
     * the client's default, as the client itself would choose.
     */
    @Override
    public void send(int attempt, int scope, String marker, long limitMillis, AsyncAttempt<Head> handle) {
        shortened = false;
        if (limitMillis > 0) {
            try {
                if (attempt == 1) {
                    ownConfig = context.getAttribute(HttpClientContext.REQUEST_CONFIG);
                }
                RequestConfig own = ownConfig instanceof RequestConfig ? (RequestConfig) ownConfig
                        : HttpClient4AttemptLimits.defaultConfigOf(client);
                if (own != null) {
                    bounding = true;
                    context.setAttribute(HttpClientContext.REQUEST_CONFIG, HttpClient4AttemptLimits.bounded(own, limitMillis));
                    shortened = HttpClient4AttemptLimits.shortensSocket(own, limitMillis);
                }
            } catch (RuntimeException e) {
                RetryLog.internalError(ClientNames.APACHE_HTTPCLIENT4 + ".attempt-timeout", e); // the client's own
            }
        }
        send(attempt, scope, marker, handle);
    }

    /** The attempt in flight ended (its head arrived, or it failed): the context has the call's own config again. */
    void restoreConfig() {
        if (bounding) {
            bounding = false;
            context.setAttribute(HttpClientContext.REQUEST_CONFIG, ownConfig);
        }
    }

    @Override
    public boolean cutShort(IOException failure) {
        return Failures.cutShort(failure, shortened);
    }

    @Override
    public void send(int attempt, int scope, String marker, AsyncAttempt<Head> handle) {
        HttpClient4AsyncAttempt<T> current = new HttpClient4AsyncAttempt<T>(this, handle);
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

    private void start(HttpClient4AsyncAttempt<T> current, String marker) {
        Future<T> inFlight = client.execute(
                new HttpClient4AsyncAttempt.Producer(producer, markerHeader, marker, current), current, context,
                current.result());
        current.inFlight = inFlight;
        if (isCancelled()) {
            inFlight.cancel(true);
        }
    }

    void cancelInFlight() {
        HttpClient4AsyncAttempt<T> current = last;
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
        HttpClient4AsyncAttempt<T> current = last;
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
    final class Delivery implements CallCompletion<Head> {
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
                Closeables.closeQuietly(consumer);
                future.failed(cause);
            }
        }
    }

    HttpAsyncResponseConsumer<T> consumer() {
        return consumer;
    }

    /**
     * {@code execute(producer, consumer, context, callback)} of an async client: the future of the call, retried; or
     * {@link Hooks#PROCEED} to let the client run it untouched (one of the agent's own attempts, the agent is not
     * running, or something about the call is not understood).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Object execute(CloseableHttpAsyncClient client, HttpAsyncRequestProducer producer,
                          HttpAsyncResponseConsumer<?> consumer, HttpContext context, FutureCallback<?> callback) {
        if (consumer instanceof HttpClient4AsyncAttempt || callback instanceof HttpClient4AsyncAttempt.Result) {
            return Hooks.PROCEED; // an attempt of a call the loop runs
        }
        AsyncRetryLoop loop = RetryRuntime.asyncLoop();
        RetryEngine engine = RetryRuntime.engine();
        if (loop == null || engine == null || client == null || producer == null || consumer == null) {
            return Hooks.PROCEED;
        }
        HttpClient4AsyncExchange call;
        CallFacts facts;
        try {
            producer = OpenTelemetryProducers.applicationProducer(producer);
            HttpHost target = producer.getTarget();
            HttpRequest request = producer.generateRequest();
            if (target == null || request == null) {
                return Hooks.PROCEED;
            }
            facts = HttpClient4Requests.facts(request, target, producer.isRepeatable(), engine);
            call = new HttpClient4AsyncExchange(client, producer, (HttpAsyncResponseConsumer) consumer,
                    contextFor(request, context), (FutureCallback) callback, facts.policy().markerHeader());
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

    /** The future the application holds: cancelling it cancels the attempt in flight. */
    static final class CallFuture<T> extends BasicFuture<T> {
        private volatile HttpClient4AsyncExchange<T> call;

        CallFuture(FutureCallback<T> callback) {
            super(callback);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            HttpClient4AsyncExchange<T> c = call;
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
}
