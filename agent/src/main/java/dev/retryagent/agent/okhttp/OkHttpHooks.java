package dev.retryagent.agent.okhttp;

import dev.retryagent.agent.bootstrap.Hooks;
import dev.retryagent.agent.bootstrap.RetryRuntime;
import dev.retryagent.agent.instrument.HookHandler;
import dev.retryagent.engine.AsyncRetryLoop;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.engine.RetryLog;
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
    public static final String NEW_CALL = "okhttp.new-call";

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
     * {@code RetryAndFollowUpInterceptor.followUpRequest(response, ...)}: under {@code builtInRetries: replace}
     * there is no follow-up for a 503 of a call the agent enforces its rule on (OkHttp's own resend of a 503 with
     * {@code Retry-After: 0}); anything else is OkHttp's to decide.
     */
    static Object followUp(Response response) {
        RetryEngine engine = RetryRuntime.engine();
        if (response != null && response.code() == 503 && engine != null
                && RetryRuntime.replacesBuiltInRetries(OkHttpRequests.facts(response.request(), engine))) {
            return null;
        }
        return Hooks.PROCEED;
    }

    /**
     * A client is being built from {@code builder}: the retry interceptor becomes its first application
     * interceptor, exactly once ({@code newBuilder()} copies the list, so a copy may already hold it), and
     * under {@code builtInRetries: replace} OkHttp's own silent resend is switched off.
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
        if (RetryRuntime.replacesBuiltInRetries()) {
            builder.retryOnConnectionFailure(false);
        }
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
