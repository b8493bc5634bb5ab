package dev.retryagent.agent.clients.okhttp;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.agent.bootloader.weaving.HookHandler;
import dev.retryagent.engine.AsyncRetryLoop;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.CallPlan;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.engine.RetryLog;
import java.io.IOException;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Dispatcher;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.internal.connection.RealCall;

/**
 * The handler of OkHttp's hook points (see {@link OkHttpInstrumentation}), loaded in OkHttp's class loader.
 * Fails open: its own errors are logged once and the hooked method runs untouched; exceptions of OkHttp or
 * of the application's code reach the application unchanged ({@link Hooks.Propagate}).
 */
public final class OkHttpHooks extends HookHandler {
    public static final String CLIENT_INIT = "okhttp.client-init";
    public static final String ENQUEUE = "okhttp.enqueue";
    public static final String CANCEL = "okhttp.cancel";
    public static final String CANCEL_ALL = "okhttp.cancel-all";
    public static final String FOLLOW_UP = "okhttp.follow-up";
    public static final String RECOVER = "okhttp.recover";
    public static final String NEW_CALL = "okhttp.new-call";
    public static final String WRITE_REQUEST = "okhttp.write-request";

    /**
     * Clients built before the agent started, each with its copy that holds the retry interceptor. Weak keys
     * (clients compare by identity); a copy refers to the client's parts, never to the client itself.
     */
    private static final Map<OkHttpClient, OkHttpClient> PRE_BUILT =
            Collections.synchronizedMap(new WeakHashMap<OkHttpClient, OkHttpClient>());

    static {
        Hooks.register(OkHttpHooks.class, new OkHttpHooks());
    }

    public OkHttpHooks() {
        serve(CLIENT_INIT, new OnEntry() {
            @Override
            public void run(Object self, Object[] args) {
                clientInit((OkHttpClient.Builder) args[0]);
            }
        });
        serve(NEW_CALL, new OnEntryMayReplace() {
            @Override
            public Object run(Object self, Object[] args) {
                return newCall((OkHttpClient) self, (Request) args[0]);
            }
        });
        serve(ENQUEUE, new OnEntryMaySkip() {
            @Override
            public boolean run(Object self, Object[] args) {
                return enqueue((Call) self, (Callback) args[0]);
            }
        });
        serve(CANCEL, new OnExit() {
            @Override
            public void run(Object self, Object[] args) {
                try {
                    OkHttpAsyncExchange.cancelled((Call) self);
                } catch (RuntimeException e) {
                    throw new Hooks.Propagate(e); // from the clone's own cancel(): an event listener's exception
                }
            }
        });
        serve(CANCEL_ALL, new OnExit() {
            @Override
            public void run(Object self, Object[] args) {
                for (Call call : OkHttpAsyncExchange.runningOn((Dispatcher) self)) {
                    try {
                        call.cancel();
                    } catch (RuntimeException e) {
                        throw new Hooks.Propagate(e); // an event listener's exception, as cancelAll itself would throw
                    }
                }
            }
        });
        serve(FOLLOW_UP, new OnEntryMayReplace() {
            @Override
            public Object run(Object self, Object[] args) {
                return followUp((Response) args[0]);
            }
        });
        serve(RECOVER, new OnEntryMayReplace() {
            @Override
            public Object run(Object self, Object[] args) {
                // 4.12: (failure, call, request, requestSendStarted); 5.3: (failure, call, request);
                // 5.5: (failure, call, chain, request)
                Object last = args[args.length - 1];
                return recover((IOException) args[0], (Request) (last instanceof Request ? last : args[2]),
                        last instanceof Boolean ? (Boolean) last : null);
            }
        });
        serve(WRITE_REQUEST, new OnEntry() {
            @Override
            public void run(Object self, Object[] args) {
                OkHttpRequests.beforeWrite(self, !self.getClass().getName().endsWith("Http2ExchangeCodec"));
            }
        });
    }

    /**
     * {@code client.newCall(request)}: the call itself, unless {@code client} was built before the agent started
     * and so lacks the retry interceptor; then the call of its copy that has it (see {@link OkHttpInstrumentation}).
     */
    static Object newCall(OkHttpClient client, Request request) {
        if (client == null || request == null || RetryRuntime.engine() == null) {
            return Hooks.PROCEED;
        }
        List<Interceptor> interceptors = client.interceptors();
        if (!interceptors.isEmpty() && interceptors.get(0) instanceof RetryInterceptor) {
            return Hooks.PROCEED;
        }
        OkHttpClient withRetries;
        synchronized (PRE_BUILT) {
            withRetries = PRE_BUILT.get(client);
            if (withRetries == null) {
                withRetries = client.newBuilder().build();
                PRE_BUILT.put(client, withRetries);
            }
        }
        return withRetries.newCall(request);
    }

    /**
     * {@code RetryAndFollowUpInterceptor.followUpRequest(response, ...)}, under {@code builtInRetries: replace} for a
     * call the agent enforces its rule on: OkHttp's own resend of a 503 with {@code Retry-After: 0} (POST included) is
     * never made, so the 503 reaches the policy; its resend of a 408 is left to the agent where the agent retries
     * that 408 itself (the request carries the marker and the rule retries 408), and stays OkHttp's otherwise: the
     * server says it did not receive the whole request. Anything else is OkHttp's to decide.
     */
    static Object followUp(Response response) {
        RetryEngine engine = RetryRuntime.engine();
        if (response == null || engine == null || (response.code() != 503 && response.code() != 408)) {
            return Hooks.PROCEED;
        }
        Request sent = response.request();
        CallPlan plan = OkHttpRequests.planOf(sent, engine);
        if (!plan.replacesClientRetries()) {
            return Hooks.PROCEED;
        }
        if (response.code() == 408 && !(marked(plan, sent) && plan.retriesStatus(408))) {
            return Hooks.PROCEED;
        }
        return null;
    }

    /** Whether {@code sent} carries the marker header of {@code plan}'s policy (the agent's, or a layer's above). */
    private static boolean marked(CallPlan plan, Request sent) {
        String marker = plan.policy().markerHeader();
        return marker != null && sent.header(marker) != null;
    }

    /**
     * {@code RetryAndFollowUpInterceptor.recover(failure, call, ...)}: whether OkHttp makes the call again itself after
     * {@code failure}. Under {@code builtInRetries: replace}, for a call the agent enforces its rule on, a request a
     * server may have read is never sent again by OkHttp (the answer is false, and the failure reaches the policy);
     * a request that never left ({@link OkHttpRequests#neverSent}: another address, another proxy, another TLS
     * configuration, a refused HTTP/2 stream), or one written to a pooled connection its server had closed already
     * ({@link OkHttpRequests#beforeWrite}), is recovered by OkHttp as without the agent. {@code sendStarted}: what
     * 4.12 says; null where OkHttp does not say (5.x, which tells only a connection shut down before the stream).
     */
    static Object recover(IOException failure, Request request, Boolean sendStarted) {
        boolean toClosedConnection = OkHttpRequests.takeWrittenToClosedConnection();
        RetryEngine engine = RetryRuntime.engine();
        if (engine == null || failure == null || request == null || Boolean.FALSE.equals(sendStarted)
                || toClosedConnection || OkHttpRequests.neverSent(failure)) {
            return Hooks.PROCEED;
        }
        return OkHttpRequests.planOf(request, engine).replacesClientRetries() ? Boolean.FALSE : Hooks.PROCEED;
    }

    /**
     * A client is being built from {@code builder}: the retry interceptor becomes its first application
     * interceptor, exactly once ({@code newBuilder()} copies the list, so a copy may already hold it).
     * {@code retryOnConnectionFailure} stays as the application set it: it also switches OkHttp's route, proxy and TLS
     * fallbacks, which {@link #recover} keeps.
     */
    static void clientInit(OkHttpClient.Builder builder) {
        if (builder == null || RetryRuntime.engine() == null) {
            return; // a null builder: OkHttp's own check reports it
        }
        List<Interceptor> interceptors = builder.interceptors();
        for (Iterator<Interceptor> it = interceptors.iterator(); it.hasNext(); ) {
            if (it.next() instanceof RetryInterceptor) {
                it.remove();
            }
        }
        interceptors.add(0, RetryInterceptor.INSTANCE);
    }

    /** The dispatcher that runs {@code call}'s attempts; null for a call that is not OkHttp's own. */
    private static Dispatcher dispatcherOf(Call call) {
        return call instanceof RealCall ? ((RealCall) call).getClient().dispatcher() : null;
    }

    /**
     * {@code call.enqueue(callback)}: true when the async loop took the call over (the original enqueue must
     * not run), false to let it run as is: an attempt of the loop itself, a web socket, a call enqueued twice
     * (OkHttp throws "Already Executed"), or the agent is not running.
     */
    static boolean enqueue(Call call, Callback callback) {
        if (OkHttpAsyncExchange.attemptOf(call) != null) {
            return false;
        }
        AsyncRetryLoop loop = RetryRuntime.asyncLoop();
        RetryEngine engine = RetryRuntime.engine();
        if (loop == null || engine == null || callback == null || call.isExecuted()) {
            return false;
        }
        CallFacts facts;
        OkHttpAsyncExchange exchange;
        try {
            // First of all: whatever happens next, the interceptor must never run this call's sync loop on a
            // dispatcher thread.
            OkHttpAsyncExchange.markAttempt(call, OkHttpAsyncExchange.AttemptMarker.UNMARKED);
            if (OkHttpRequests.isUpgrade(call.request())) {
                return false;
            }
            facts = OkHttpRequests.facts(call.request(), engine);
            exchange = new OkHttpAsyncExchange(call, facts.policy().markerHeader(), dispatcherOf(call));
        } catch (RuntimeException e) {
            RetryLog.internalError("okhttp.enqueue", e);
            return false;
        }
        OkHttpAsyncExchange.running(call, exchange);
        try {
            loop.execute(facts, exchange, new OkHttpAsyncExchange.Delivery(call, callback));
        } catch (RuntimeException e) {
            OkHttpAsyncExchange.finished(call);
            throw new Hooks.Propagate(e);
        } catch (Error e) {
            OkHttpAsyncExchange.finished(call);
            throw new Hooks.Propagate(e);
        }
        return true;
    }
}
