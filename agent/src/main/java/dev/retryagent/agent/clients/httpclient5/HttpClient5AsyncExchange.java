package dev.retryagent.agent.clients.httpclient5;

import dev.retryagent.agent.bootloader.runtime.Failures;
import dev.retryagent.agent.bootloader.runtime.NotIoFailure;
import dev.retryagent.engine.AsyncAttempt;
import dev.retryagent.engine.AsyncExchange;
import dev.retryagent.engine.CallCompletion;
import dev.retryagent.engine.Outcome;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import java.io.IOException;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecChain;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.concurrent.CancellableDependency;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncDataConsumer;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.apache.hc.core5.http.nio.entity.DiscardingEntityConsumer;
import org.apache.hc.core5.http.support.BasicRequestBuilder;

/**
 * One async HttpClient 5 call, as the async retry loop sees it, inside the client's async exec chain
 * ({@link AsyncRetryHandler}). Each attempt is a {@code chain.proceed()} with a fresh copy of the request, the
 * marker header set, and the call's entity producer, rewound between attempts ({@code releaseResources()}).
 *
 * <p>An attempt is reported to the loop when its response head arrives ({@link Head}), because that is when
 * the exec chain needs to know who consumes the body: the application's consumer, when the loop delivers the
 * head ({@link ChainCompletion}), or a {@code DiscardingEntityConsumer}, when the loop retries. The loop starts the next
 * attempt only once the previous one has finished ({@link AsyncAttempt}): its discarded body read to the end and
 * its connection released to the pool, or its failure handled.
 *
 * <p>After the head went to the application, everything else of that attempt (body, completion, failure)
 * passes straight through: the application's callback hears of exactly one response, or one failure.
 */
final class HttpClient5AsyncExchange implements AsyncExchange<HttpClient5AsyncExchange.Head> {
    private final HttpRequest request;
    private final AsyncEntityProducer producer;
    private final AsyncExecChain.Scope scope;
    private final AsyncExecChain chain;
    private final AsyncExecCallback application;
    private final String markerHeader;

    HttpClient5AsyncExchange(HttpRequest request, AsyncEntityProducer producer, AsyncExecChain.Scope scope,
                         AsyncExecChain chain, AsyncExecCallback application, String markerHeader) {
        this.request = request;
        this.producer = producer;
        this.scope = scope;
        this.chain = chain;
        this.application = application;
        this.markerHeader = markerHeader;
    }

    /** The loop's caller: the next element of the chain (towards the application). */
    ChainCompletion completion() {
        return new ChainCompletion();
    }

    /**
     * The call's own {@code RequestConfig} while an attempt runs with a bounded one on the context (the exec chain
     * reads it when it connects and sends, after a lease that may come later), put back when the attempt ends.
     */
    private volatile RequestConfig ownConfig;
    /** The context holds a config of the agent's, to be replaced by {@link #ownConfig} (null included) at the end. */
    private volatile boolean bounding;
    /** The attempt in flight runs with a response timeout the agent shortened to its limit. */
    private volatile boolean shortened;

    @Override
    public void send(int attempt, int scope, String marker, long limitMillis, AsyncAttempt<Head> handle) {
        shortened = false;
        if (limitMillis > 0) {
            try {
                HttpClientContext context = this.scope.clientContext;
                RequestConfig own = attempt == 1 ? context.getRequestConfig() : ownConfig;
                ownConfig = own;
                bounding = true;
                context.setRequestConfig(HttpClient5Requests.bounded(own, limitMillis));
                shortened = HttpClient5Requests.shortensResponse(own, limitMillis);
            } catch (RuntimeException e) {
                RetryLog.internalError(ClientNames.APACHE_HTTPCLIENT5 + ".attempt-timeout", e); // the client's own
            }
        }
        send(attempt, scope, marker, handle);
    }

    /** The attempt in flight ended (its head arrived, or it failed): the context has the call's own config again. */
    private void restoreConfig() {
        if (bounding) {
            bounding = false;
            scope.clientContext.setRequestConfig(ownConfig);
        }
    }

    @Override
    public boolean cutShort(IOException failure) {
        return Failures.cutShort(failure, shortened);
    }

    @Override
    public void send(int attempt, int scope, String marker, AsyncAttempt<Head> handle) {
        AttemptExecCallback current = new AttemptExecCallback(handle);
        if (attempt == 1) {
            // The application's own call, on its thread: whatever the chain throws is the client's, as without
            // the agent (NotSent carries a checked exception out of the loop to AsyncRetryHandler).
            proceed(current, marker);
            return;
        }
        // A retry, on the scheduler thread or from the completion of the attempt before.
        try {
            if (producer != null) {
                producer.releaseResources(); // rewinds a repeatable producer, as the client's own retry does
            }
            proceed(current, marker);
        } catch (NotSent e) {
            current.failed(e.original());
        } catch (RuntimeException e) {
            current.failed(e);
        }
    }

    private void proceed(AttemptExecCallback current, String marker) {
        HttpRequest copy = BasicRequestBuilder.copy(request).build();
        if (markerHeader != null && marker != null) {
            copy.setHeader(markerHeader, marker);
        }
        try {
            chain.proceed(copy, producer, scope, current);
        } catch (HttpException e) {
            throw new NotSent(e);
        } catch (IOException e) {
            throw new NotSent(e);
        }
    }

    @Override
    public Outcome outcome(Head head) {
        return HttpClient5Requests.outcome(head.response);
    }

    @Override
    public FailureKind classify(IOException failure) {
        return isCancelled() ? FailureKind.OTHER : HttpClient5Requests.classify(failure, scope.clientContext);
    }

    @Override
    public boolean unsent(IOException failure, FailureKind kind) {
        return HttpClient5Requests.unsent(failure, kind);
    }

    /**
     * Nothing to do here: an attempt whose head is not delivered hands the exec chain a
     * {@code DiscardingEntityConsumer}, and releases its connection when the body has been read
     * ({@link AttemptExecCallback#completed}).
     */
    @Override
    public void discard(Head head) {
    }

    @Override
    public boolean isCancelled() {
        CancellableDependency dependency = scope.cancellableDependency;
        return dependency != null && dependency.isCancelled();
    }

    /** A response head as the loop sees it: status and headers; the body is still to come. */
    static final class Head {
        final HttpResponse response;
        final EntityDetails details;

        Head(HttpResponse response, EntityDetails details) {
            this.response = response;
            this.details = details;
        }
    }

    /** The exec chain's callback for one attempt. */
    final class AttemptExecCallback implements AsyncExecCallback {
        private final AsyncAttempt<Head> attempt;

        AttemptExecCallback(AsyncAttempt<Head> attempt) {
            this.attempt = attempt;
        }

        @Override
        public AsyncDataConsumer handleResponse(HttpResponse response, EntityDetails details)
                throws HttpException, IOException {
            restoreConfig();
            if (!attempt.arrived(new Head(response, details))) { // the loop delivers the head or retries
                return details == null ? null : new DiscardingEntityConsumer<Object>();
            }
            return application.handleResponse(response, details); // the loop's final answer
        }

        @Override
        public void handleInformationResponse(HttpResponse response) throws HttpException, IOException {
            application.handleInformationResponse(response);
        }

        @Override
        public void completed() {
            if (attempt.delivered()) {
                application.completed();
                return;
            }
            // A discarded response has been read to its end: the connection goes back to the pool now, not
            // after the wait (the next attempt leases one again).
            scope.execRuntime.releaseEndpoint();
            attempt.finished();
        }

        @Override
        public void failed(Exception cause) {
            if (attempt.delivered()) {
                application.failed(cause);
                return;
            }
            restoreConfig();
            scope.execRuntime.discardEndpoint();
            // Before the head, the attempt's end; after a discarded head, the end of its body.
            attempt.failed(cause instanceof IOException ? (IOException) cause : new NotIoFailure(cause));
        }
    }

    /** How the call ended, for the rest of the chain: its scope ends, and a failure goes on towards the application. */
    final class ChainCompletion implements CallCompletion<Head> {
        @Override
        public void onResponse(Head head) {
            // Before the attempt's callback hands the head on to the application (AsyncAttempt#arrived).
            AsyncRetryHandler.finished(scope);
        }

        @Override
        public void onFailure(IOException failure) {
            AsyncRetryHandler.finished(scope);
            application.failed(NotIoFailure.unwrap(failure));
        }
    }

    /** A checked exception the chain threw when an attempt was sent, carried out of the loop unchecked. */
    static final class NotSent extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotSent(Exception cause) {
            super(cause);
        }

        Exception original() {
            return (Exception) getCause();
        }
    }
}
