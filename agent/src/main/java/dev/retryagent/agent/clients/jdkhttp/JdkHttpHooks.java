package dev.retryagent.agent.clients.jdkhttp;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.agent.bootloader.weaving.HookHandler;
import dev.retryagent.engine.AsyncRetryLoop;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.CallPlan;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import dev.retryagent.policy.Mode;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.reflect.Proxy;
import java.net.ConnectException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * The handler of the {@code java.net.http} hooks (see {@link JdkHttpInstrumentation}). Loaded in the agent
 * jar's class loader, which sees {@code java.net.http} through the platform loader; uses only JDK types of
 * {@code java.base} and reflection ({@link JdkHttpApi}).
 */
public final class JdkHttpHooks extends HookHandler {
    static final String SEND = "jdk-httpclient.send";
    static final String SEND_ASYNC = "jdk-httpclient.send-async";
    static final String SEND_ASYNC_2 = "jdk-httpclient.send-async-2";
    static final String RESEND = "jdk-httpclient.resend";
    static final String EXCHANGE = "jdk-httpclient.exchange";

    /** The request class of the client's own WebSocket opening handshake: left alone. */
    private static final String INTERNAL_REQUEST = "jdk.internal.net.http.HttpRequestImpl";
    private static final String CONNECTION_EXPIRED = "jdk.internal.net.http.common.ConnectionExpiredException";

    static {
        Hooks.register(JdkHttpHooks.class, new JdkHttpHooks());
    }

    public JdkHttpHooks() {
        serve(SEND, new OnEntryMayReplace() {
            @Override
            public Object run(Object self, Object[] args) {
                if (self == null || args[3] != null) {
                    return Hooks.PROCEED; // an executor: sendAsync's call, retried at its own entry
                }
                return retried(self, args[0], args[1], false);
            }
        });
        serve(SEND_ASYNC, new OnEntryMayReplace() {
            @Override
            public Object run(Object self, Object[] args) {
                if (self == null || args[2] != null) {
                    return Hooks.PROCEED; // a push promise handler would hear of every attempt's pushes: left alone
                }
                return retried(self, args[0], args[1], true);
            }
        });
        serve(SEND_ASYNC_2, new OnEntryMayReplace() {
            @Override
            public Object run(Object self, Object[] args) {
                return self == null ? Hooks.PROCEED : retried(self, args[0], args[1], true);
            }
        });
        serve(RESEND, new OnEntry() {
            @Override
            public void run(Object self, Object[] args) {
                if (self == null) {
                    return;
                }
                try {
                    switchOffResend(self, args[0]);
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        serve(EXCHANGE, new OnEntry() {
            @Override
            public void run(Object self, Object[] args) {
                if (self == null) {
                    return;
                }
                try {
                    LastHop.exchangeStarts(self);
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        });
    }

    /**
     * Under {@code builtInRetries: replace}, an attempt the agent runs is not resent by the client after an expired
     * connection (a pooled connection that failed before the first byte of the answer): the client is told it has
     * resent once already, so it fails with the cause, as it does after its own one resend. Its connect retry after a
     * refused connection (the request never left) goes the same way for an attempt the agent itself may follow with a
     * retry of a request that never left, so that one layer retries it; on the call's last attempt it stays, as does
     * the resend of a request the peer says it did not process.
     */
    static void switchOffResend(Object multiExchange, Object failure) throws IllegalAccessException {
        Throwable t = failure instanceof Throwable ? (Throwable) failure : null;
        if ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        if (t == null) {
            return;
        }
        boolean expired = CONNECTION_EXPIRED.equals(t.getClass().getName());
        if (!expired && !(t instanceof ConnectException)) {
            return;
        }
        JdkHttpAsyncExchange.Attempt attempt = LastHop.attemptOf(multiExchange);
        if (attempt == null || !attempt.call().replacesBuiltInRetries) {
            return;
        }
        if (expired || attempt.number < attempt.call().lastAttemptRetriedUnsent) {
            JdkHttpApi.of(multiExchange.getClass()).markRetriedOnce(multiExchange);
        }
    }

    /** A {@code send} or {@code sendAsync} of the application's: run in the retry loop, or left alone (PROCEED). */
    static Object retried(Object client, Object request, Object handler, boolean async) {
        if (request == null || handler == null) {
            return Hooks.PROCEED; // the client throws its NullPointerException, as without the agent
        }
        if (Proxy.isProxyClass(handler.getClass())
                && Proxy.getInvocationHandler(handler) instanceof JdkHttpAsyncExchange.Attempt) {
            return Hooks.PROCEED; // one of the agent's own attempts
        }
        if (INTERNAL_REQUEST.equals(request.getClass().getName())) {
            return Hooks.PROCEED;
        }
        RetryEngine engine = RetryRuntime.engine();
        AsyncRetryLoop shared = RetryRuntime.asyncLoop();
        if (engine == null || shared == null) {
            return Hooks.PROCEED;
        }
        JdkHttpApi api;
        CallFacts facts;
        CallPlan plan;
        JdkHttpAsyncExchange call;
        try {
            api = JdkHttpApi.of(client.getClass());
            if (!async) {
                api.lookUpSendInline();
            }
            facts = JdkHttpRequests.facts(api, request, engine);
            plan = facts == null ? null : engine.plan(facts);
            if (plan == null || plan.mode() == Mode.OFF) {
                return Hooks.PROCEED;
            }
            boolean replaces = plan.replacesClientRetries();
            call = new JdkHttpAsyncExchange(api, client, request, handler, plan.policy().markerHeader(), async,
                    replaces, replaces ? plan.lastAttemptRetriedUnsent(FailureKind.CONNECT) : 1);
        } catch (JdkHttpApi.Thrown e) {
            // The request's own accessors threw: the client meets the same when it reads them.
            return Hooks.PROCEED;
        } catch (RuntimeException e) {
            // Fail open: the call goes out as the client sends it, unmarked.
            RetryLog.internalError(ClientNames.JDK_HTTPCLIENT + ".facts", e);
            return Hooks.PROCEED;
        }
        if (async) {
            try {
                shared.execute(facts, plan, call, call.delivery());
            } catch (JdkHttpApi.Thrown e) {
                // The first sendAsync threw at once (an unsupported method, a closed client ...), as without the agent.
                throw new Hooks.Propagate(e.getCause());
            }
            return call.result;
        }
        return sendOnCallerThread(shared, facts, plan, call);
    }

    /**
     * {@code send}: the same loop, with its waits and attempts on the caller's thread ({@link CallerThreadScheduler}), in place
     * of the future the client's {@code send} waits for: it gets {@link JdkHttpAsyncExchange#result}, done, and makes
     * of it what it makes of its own future (the response, or its own exception around the last attempt's failure,
     * thrown from its one frame). An interrupt of an attempt's wait is thrown as the client's {@code send} throws it.
     */
    private static Object sendOnCallerThread(AsyncRetryLoop shared, CallFacts facts, CallPlan plan,
                                             JdkHttpAsyncExchange call) {
        CallerThreadScheduler waits = new CallerThreadScheduler();
        call.result.onDone(waits);
        try {
            shared.withScheduler(waits).execute(facts, plan, call, call.delivery());
        } catch (JdkHttpApi.Thrown e) {
            // The first attempt threw at once (an unsupported method, a closed client ...), as without the agent.
            throw new Hooks.Propagate(e.getCause());
        }
        while (!call.result.isDone()) {
            Runnable next;
            try {
                next = waits.awaitDue(call.result);
            } catch (InterruptedException e) {
                call.result.cancel(false);
                Thread.currentThread().interrupt();
                Throwable last = call.result.lastFailure;
                if (last instanceof IOException) {
                    CompletableFuture<Object> failed = new CompletableFuture<Object>();
                    failed.completeExceptionally(last);
                    return failed; // the client's send throws its own exception for it
                }
                InterruptedIOException interrupted = new InterruptedIOException(
                        "retry-agent: interrupted while waiting to retry; the last response was released");
                interrupted.initCause(e);
                throw new Hooks.Propagate(interrupted);
            }
            if (next != null) {
                next.run();
            }
        }
        if (call.result.failure instanceof InterruptedException) {
            throw new Hooks.Propagate(call.result.failure);
        }
        return call.result;
    }
}
