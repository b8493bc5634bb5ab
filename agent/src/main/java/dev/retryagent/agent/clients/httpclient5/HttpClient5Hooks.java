package dev.retryagent.agent.clients.httpclient5;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.agent.bootloader.weaving.HookHandler;
import java.io.IOException;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecChain;
import org.apache.hc.client5.http.async.AsyncExecChainHandler;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.classic.ExecChainHandler;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.impl.classic.MinimalHttpClient;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * The handler of HttpClient 5's hook points (see {@link HttpClient5Instrumentation}), loaded in HttpClient's
 * class loader. Fails open: its own errors are logged once and the hooked method runs untouched; exceptions of
 * HttpClient or of the application's code reach the application unchanged ({@link Hooks.Propagate}).
 */
public final class HttpClient5Hooks extends HookHandler {
    public static final String CLASSIC_BUILD = "apache-httpclient5.classic-build";
    public static final String ASYNC_BUILD = "apache-httpclient5.async-build";
    public static final String MINIMAL_EXECUTE = "apache-httpclient5.minimal-execute";
    public static final String PROTOCOL_EXECUTE = "apache-httpclient5.protocol-execute";
    public static final String RETRY_EXECUTE = "apache-httpclient5.retry-execute";
    public static final String ASYNC_PROTOCOL_EXECUTE = "apache-httpclient5.async-protocol-execute";
    public static final String ASYNC_RETRY_EXECUTE = "apache-httpclient5.async-retry-execute";

    /**
     * The builders already given the retry handler: a builder may build several clients, and its exec
     * interceptors are kept between builds. Weak keys (builders compare by identity): an entry goes with its
     * builder.
     */
    private static final Map<Object, Boolean> PREPARED = Collections.synchronizedMap(new WeakHashMap<Object, Boolean>());

    static {
        Hooks.register(HttpClient5Hooks.class, new HttpClient5Hooks());
    }

    public HttpClient5Hooks() {
        serve(CLASSIC_BUILD, new OnEntry() {
            @Override
            public void run(Object self, Object[] args) {
                prepare((HttpClientBuilder) self);
            }
        });
        serve(ASYNC_BUILD, new OnEntry() {
            @Override
            public void run(Object self, Object[] args) {
                prepare((HttpAsyncClientBuilder) self);
            }
        });
        serve(ASYNC_RETRY_EXECUTE, new OnEntryMaySkip() {
            @Override
            public boolean run(Object self, Object[] args) {
                // Its RuntimeExceptions are the agent's own unless it wrapped them (fail open: Hooks logs them).
                try {
                    return AsyncRetryHandler.skipBuiltInRetries((HttpRequest) args[0], (AsyncEntityProducer) args[1],
                            (AsyncExecChain.Scope) args[2], (AsyncExecChain) args[3], (AsyncExecCallback) args[4]);
                } catch (HttpException | IOException e) {
                    throw new Hooks.Propagate(e);
                }
            }
        });
        serve(ASYNC_PROTOCOL_EXECUTE, new OnEntryMaySkip() {
            @Override
            public boolean run(Object self, Object[] args) {
                try {
                    return AsyncRetryHandler.executeAtProtocol((AsyncExecChainHandler) self, (HttpRequest) args[0],
                            (AsyncEntityProducer) args[1], (AsyncExecChain.Scope) args[2], (AsyncExecChain) args[3],
                            (AsyncExecCallback) args[4]);
                } catch (HttpException | IOException | RuntimeException e) {
                    throw new Hooks.Propagate(e); // the chain's own failure to start the exchange
                }
            }
        });
        serve(RETRY_EXECUTE, new OnEntryMayReplace() {
            @Override
            public Object run(Object self, Object[] args) {
                // Its RuntimeExceptions are the agent's own unless it wrapped them (fail open: Hooks logs them).
                try {
                    return ClassicRetryHandler.skipBuiltInRetries((ClassicHttpRequest) args[0],
                            (ExecChain.Scope) args[1], (ExecChain) args[2]);
                } catch (HttpException | IOException e) {
                    throw new Hooks.Propagate(e);
                }
            }
        });
        serve(PROTOCOL_EXECUTE, new OnEntryMayReplace() {
            @Override
            public Object run(Object self, Object[] args) {
                try {
                    return ClassicRetryHandler.executeAtProtocol((ExecChainHandler) self, (ClassicHttpRequest) args[0],
                            (ExecChain.Scope) args[1], (ExecChain) args[2]);
                } catch (HttpException | IOException | RuntimeException e) {
                    throw new Hooks.Propagate(e); // the chain's own failures, as without the agent
                }
            }
        });
        serve(MINIMAL_EXECUTE, new OnEntryMayReplace() {
            @Override
            public Object run(Object self, Object[] args) {
                try {
                    return ClassicRetryHandler.executeMinimal((MinimalHttpClient) self, (HttpHost) args[0],
                            (ClassicHttpRequest) args[1], (HttpContext) args[2]);
                } catch (IOException e) {
                    throw new Hooks.Propagate(e); // the client's own failure of the last attempt
                } catch (RuntimeException e) {
                    throw new Hooks.Propagate(e); // from the client, or from the application's entity
                }
            }
        });
    }

    /**
     * {@code HttpClientBuilder.build()} is about to run: the retry handler goes into the exec chain, once per
     * builder. Nothing else about the builder changes: the client's own {@code HttpRequestRetryExec} is built as
     * the application configured it, and skipped call by call while the policy says {@code builtInRetries: replace}
     * ({@link #RETRY_EXECUTE}), so that a reload to {@code off} or {@code keep} gives a client built before it its
     * own retries back.
     */
    static void prepare(HttpClientBuilder builder) {
        if (builder == null || RetryRuntime.engine() == null || PREPARED.put(builder, Boolean.TRUE) != null) {
            return;
        }
        builder.addExecInterceptorBefore(ChainElement.PROTOCOL.name(), ClassicRetryHandler.NAME,
                ClassicRetryHandler.INSTANCE);
    }

    /** The same for {@code HttpAsyncClientBuilder.build()} and its {@code AsyncHttpRequestRetryExec}. */
    static void prepare(HttpAsyncClientBuilder builder) {
        if (builder == null || RetryRuntime.engine() == null || PREPARED.put(builder, Boolean.TRUE) != null) {
            return;
        }
        builder.addExecInterceptorBefore(ChainElement.PROTOCOL.name(), AsyncRetryHandler.NAME,
                AsyncRetryHandler.INSTANCE);
    }
}
