package dev.retryagent.agent.clients.httpclient4;

import dev.retryagent.agent.bootloader.runtime.NotIoFailure;
import dev.retryagent.engine.AsyncAttempt;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.Future;
import org.apache.http.HttpException;
import org.apache.http.HttpHost;
import org.apache.http.HttpRequest;
import org.apache.http.HttpResponse;
import org.apache.http.client.methods.HttpExecutionAware;
import org.apache.http.concurrent.FutureCallback;
import org.apache.http.nio.ContentDecoder;
import org.apache.http.nio.ContentEncoder;
import org.apache.http.nio.IOControl;
import org.apache.http.nio.protocol.HttpAsyncRequestProducer;
import org.apache.http.nio.protocol.HttpAsyncResponseConsumer;
import org.apache.http.protocol.HttpContext;
import org.apache.http.protocol.HttpCoreContext;

/**
 * One attempt of an async call ({@link HttpClient4AsyncExchange}): the response consumer the client is given, its
 * result callback ({@link Result}), and the producer that sends the attempt's copy of the request ({@link Producer}).
 */
final class HttpClient4AsyncAttempt<T> implements HttpAsyncResponseConsumer<T> {
    private final HttpClient4AsyncExchange<T> call;
    private final AsyncAttempt<HttpClient4AsyncExchange.Head> handle;
    private volatile boolean drained;
    volatile Future<T> inFlight;
    /** Whether this attempt's request went out on a connection that had carried one before. */
    volatile boolean reused;
    private ByteBuffer sink;

    HttpClient4AsyncAttempt(HttpClient4AsyncExchange<T> call, AsyncAttempt<HttpClient4AsyncExchange.Head> handle) {
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
        call.restoreConfig();
        // The client follows redirects inside one attempt, and notes the hop it sends in the context.
        Object target = call.context.getAttribute(HttpCoreContext.HTTP_TARGET_HOST);
        Object sent = call.context.getAttribute(HttpCoreContext.HTTP_REQUEST);
        if (handle.arrived(new HttpClient4AsyncExchange.Head(response,
                target instanceof HttpHost ? (HttpHost) target : null,
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
        call.restoreConfig();
        handle.failed(cause instanceof IOException ? (IOException) cause : new NotIoFailure(cause));
    }

    /** The application's producer, generating a copy of its request with the marker set. */
    static final class Producer implements HttpAsyncRequestProducer {
        private final HttpAsyncRequestProducer producer;
        private final String markerHeader;
        private final String marker;
        private final HttpClient4AsyncAttempt<?> attempt;

        Producer(HttpAsyncRequestProducer producer, String markerHeader, String marker,
                 HttpClient4AsyncAttempt<?> attempt) {
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
            HttpRequest original = producer.generateRequest();
            if (original instanceof HttpExecutionAware) {
                // The client makes the request it sends abortable; it sends the attempt's copy, so the application's
                // own request is made to abort the whole call (the attempt in flight, and every retry), as it
                // aborts the one exchange without the agent. Aborted already: the call is cancelled at once (4.5.14
                // does that in setCancellable; 4.5.6 ignores a cancellable given to an aborted request).
                HttpExecutionAware abortable = (HttpExecutionAware) original;
                abortable.setCancellable(attempt.call.future);
                if (abortable.isAborted()) {
                    attempt.call.future.cancel(true);
                }
            }
            return HttpClient4Requests.copy(original, markerHeader, marker);
        }

        @Override
        public void produceContent(ContentEncoder encoder, IOControl ioControl) throws IOException {
            producer.produceContent(encoder, ioControl);
        }

        @Override
        public void requestCompleted(HttpContext context) {
            // The request is on the wire and its connection still leased: had it carried a request before this one?
            attempt.reused = HttpClient4Requests.connectionReused(context);
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
}
