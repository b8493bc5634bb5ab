package dev.retryagent.agent.bootloader.httpurlconnection;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.runtime.NotIoFailure;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.agent.bootloader.weaving.HookHandler;
import dev.retryagent.engine.AttemptScope;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.CallPlan;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.engine.RetryLoop;
import dev.retryagent.policy.BuiltInRetries;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import java.io.IOException;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.NoRouteToHostException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The handler of the HttpURLConnection hooks (where they sit and why: the package description of
 * {@code dev.retryagent.agent.clients.httpurlconnection}). It uses JDK types only and lives on the bootstrap path, next
 * to the engine: the hooked class is in {@code java.base}.
 *
 * <p>The first read of a connection runs the whole call through the shared {@link RetryLoop}, its attempts made by
 * {@link HttpUrlConnectionSyncExchange}. The loop runs under the connection's own lock, as the JDK's read does, so that
 * another thread reading the same connection waits for the result instead of starting a call of its own. Once the
 * connection has a result, every later read (the application's next getter, the JDK's own re-entries) sees it: the
 * hook lets them through untouched.
 *
 * <p>What the application gets is what the JDK produced for the last attempt: its stream, or the very exception
 * the JDK threw for it, with the status, headers and error stream readable as usual. Fails open: an error of
 * the agent's own makes the read run as the JDK runs it alone.
 */
public final class HttpUrlConnectionHooks extends HookHandler {
    /** The hook at the entry of {@code getInputStream()}. */
    public static final String GET_INPUT_STREAM = "httpurlconnection.get-input-stream";
    /** The hook at the entry of {@code getOutputStream()}. */
    public static final String GET_OUTPUT_STREAM = "httpurlconnection.get-output-stream";
    /** The hook at the entry of the private {@code writeRequests()}. */
    public static final String WRITE_REQUESTS = "httpurlconnection.write-requests";

    static {
        Hooks.register(HttpUrlConnectionHooks.class, new HttpUrlConnectionHooks());
    }

    public HttpUrlConnectionHooks() {
        serve(GET_INPUT_STREAM, new OnEntryMayReplace() {
            @Override
            public Object run(Object self, Object[] args) {
                return self instanceof HttpURLConnection ? getInputStream((HttpURLConnection) self) : Hooks.PROCEED;
            }
        });
        serve(GET_OUTPUT_STREAM, new OnEntryMayReplace() {
            @Override
            public Object run(Object self, Object[] args) {
                if (!(self instanceof HttpURLConnection)) {
                    return Hooks.PROCEED;
                }
                beforeStreamingHead((HttpURLConnection) self);
                return getOutputStream((HttpURLConnection) self);
            }
        });
        serve(WRITE_REQUESTS, new OnEntry() {
            @Override
            public void run(Object self, Object[] args) {
                if (self instanceof HttpURLConnection) {
                    HiddenResend.beforeRequestWritten((HttpURLConnection) self);
                }
            }
        });
    }

    /**
     * {@code conn.getInputStream()}, retried; or {@link Hooks#PROCEED} to let the JDK's method run untouched (the
     * agent is not running, the connection has its result already, or its state cannot be reached).
     */
    static Object getInputStream(HttpURLConnection conn) {
        RetryLoop loop = RetryRuntime.loop();
        if (loop == null) {
            return Hooks.PROCEED;
        }
        HttpUrlConnectionFields state = HttpUrlConnectionFields.get();
        if (state == null) {
            return Hooks.PROCEED;
        }
        if (state.hasResult(conn)) {
            // The application's next read of a call made already: the JDK's method takes the connection's lock
            // and returns or rethrows the result, so no lock here. (A result is only taken away again under
            // that lock, by the loop of this connection's call, which a read without the result then waits for.)
            return Hooks.PROCEED;
        }
        ReentrantLock lock = state.lockOf(conn);
        if (lock != null) {
            lock.lock();
            try {
                return call(loop, state, conn);
            } finally {
                lock.unlock();
            }
        }
        synchronized (conn) { // before Java 14 the JDK's read methods are synchronized on the connection
            return call(loop, state, conn);
        }
    }

    /**
     * {@code getOutputStream()} is about to run. In streaming mode it writes the request head before the body,
     * long before the first read: the head of the call's one attempt gets the marker ({@code 1}) here, when the
     * call's mode is {@code enforce} and the application did not set the marker itself. Buffered bodies are sent
     * by the read, which marks each attempt ({@link HttpUrlConnectionSyncExchange}). Errors are the hook's to log.
     */
    static void beforeStreamingHead(HttpURLConnection conn) {
        RetryLoop loop = RetryRuntime.loop();
        HttpUrlConnectionFields state = loop == null ? null : HttpUrlConnectionFields.get();
        if (state == null) {
            return;
        }
        ReentrantLock lock = state.lockOf(conn);
        if (lock != null) {
            lock.lock();
            try {
                markStreamingHead(loop, state, conn);
            } finally {
                lock.unlock();
            }
            return;
        }
        synchronized (conn) {
            markStreamingHead(loop, state, conn);
        }
    }

    /**
     * {@code conn.getOutputStream()}, whose body the JDK connects for long before the first read that the loop runs, so
     * that a refused connection would reach the application before the agent sees the call. The JDK's method is run;
     * only when it fails to connect (refused, unreachable: nothing was sent) and the call's rule retries a request that
     * never left, for a body that is not streamed, does the application get the empty buffer it would have got, and
     * the first read runs the call in the loop, which connects again, sends the body from the buffer and retries as for
     * any request that never left. A connect timeout still reaches the application here: its wait belongs to the
     * call's deadline, which starts at the first read. Everything else is the JDK's own result or failure, as alone;
     * {@link Hooks#PROCEED} when the agent is not running.
     */
    static Object getOutputStream(HttpURLConnection conn) {
        RetryLoop loop = RetryRuntime.loop();
        HttpUrlConnectionFields state = loop == null ? null : HttpUrlConnectionFields.get();
        if (state == null) {
            return Hooks.PROCEED;
        }
        try {
            return conn.getOutputStream(); // the JDK's own method: the hook lets its nested call through
        } catch (ConnectException | NoRouteToHostException e) {
            if (state.isStreaming(conn) || !loop.engine().plan(HttpUrlConnectionRequests.facts(conn, false,
                    loop.engine(), state)).mayRetryUnsent(FailureKind.CONNECT)) {
                throw new Hooks.Propagate(e);
            }
            ReentrantLock lock = state.lockOf(conn);
            if (lock == null) {
                synchronized (conn) {
                    return state.bufferWithoutConnection(conn);
                }
            }
            lock.lock();
            try {
                return state.bufferWithoutConnection(conn);
            } finally {
                lock.unlock();
            }
        } catch (IOException | RuntimeException e) {
            throw new Hooks.Propagate(e); // the JDK's own failure, as alone
        }
    }

    private static void markStreamingHead(RetryLoop loop, HttpUrlConnectionFields state, HttpURLConnection conn) {
        if (!state.isStreaming(conn) || state.requestHeadBuilt(conn) || state.hasResult(conn)) {
            return;
        }
        CallPlan plan = loop.engine().plan(HttpUrlConnectionRequests.facts(conn, true, loop.engine(), state));
        if (plan.mode() == Mode.OFF) {
            return;
        }
        String marker = plan.markerHeader();
        if (marker != null) {
            // Attempt 1, or, made inside an attempt of another call, that attempt's number (as the loop does).
            int enclosing = AttemptScope.current();
            state.setRequestHeader(conn, marker, enclosing > 0 ? Integer.toString(enclosing) : "1");
        }
    }

    private static Object call(RetryLoop loop, HttpUrlConnectionFields state, HttpURLConnection conn) {
        CallFacts facts;
        CallPlan plan;
        HttpUrlConnectionSyncExchange exchange;
        try {
            if (state.hasResult(conn)) {
                return Hooks.PROCEED; // a later read of a call made already, or the JDK re-entering its read
            }
            facts = HttpUrlConnectionRequests.facts(conn, state.isStreaming(conn), loop.engine(), state);
            plan = loop.engine().plan(facts);
            // Under builtInRetries: replace the loop is this call's only retry layer: the JDK's hidden resend goes.
            boolean soleLayer = plan.replacesClientRetries();
            boolean checkStale = soleLayer
                    && (AttemptScope.current() > 0 || !plan.mayRetry(FailureKind.RESET));
            exchange = new HttpUrlConnectionSyncExchange(conn, state, plan.policy().markerHeader(), soleLayer,
                    checkStale);
        } catch (RuntimeException e) {
            RetryLog.internalError(ClientNames.HTTP_URL_CONNECTION + ".facts", e);
            return Hooks.PROCEED;
        }
        HttpUrlConnectionSyncExchange.AttemptResponse last;
        try {
            last = loop.execute(facts, plan, exchange);
        } catch (NotIoFailure e) {
            throw new Hooks.Propagate(e.original()); // the JDK's or the application's own RuntimeException
        } catch (IOException e) {
            if (e != exchange.lastFailure()) {
                // The loop's own failure (interrupted while waiting, the last response released): the
                // connection reports it from now on, as it would report a failure of its own.
                try {
                    state.failWith(conn, e);
                } catch (RuntimeException internal) {
                    RetryLog.internalError(ClientNames.HTTP_URL_CONNECTION + ".fail", internal);
                }
            }
            throw new Hooks.Propagate(e);
        }
        if (last.error != null) {
            throw new Hooks.Propagate(last.error); // a 4xx/5xx status: the exception the JDK threw for it
        }
        return last.stream;
    }
}
