package dev.retryagent.agent.clients.reactornetty;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.runtime.RetryRuntime;
import dev.retryagent.agent.bootloader.weaving.HookHandler;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.ClientNames;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import io.netty.buffer.ByteBuf;
import java.util.function.Predicate;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.http.client.HttpClient;
import reactor.netty.channel.ChannelOperations;
import reactor.netty.http.client.HttpClientRequest;

/**
 * The handler of Reactor Netty's hook points (see {@link ReactorNettyInstrumentation}), loaded in Reactor Netty's class
 * loader. Fails open: its own errors are logged once and the hooked method runs untouched.
 */
public final class ReactorNettyHooks extends HookHandler {
    public static final String CONNECT = "reactor-netty.connect";
    public static final String HEADERS = "reactor-netty.headers";
    public static final String BODY = "reactor-netty.body";

    /** {@code HttpClientConnect.connect()}, protected: called from here to assemble the request the wrapper resends. */
    private static final Method CONNECT_METHOD = connectMethod();

    static {
        Hooks.register(ReactorNettyHooks.class, new ReactorNettyHooks());
    }

    public ReactorNettyHooks() {
        serve(CONNECT, new OnEntryMayReplace() {
            @Override
            public Object run(Object self, Object[] args) {
                return connect((HttpClient) self);
            }
        });
        serve(HEADERS, new OnEntry() {
            @Override
            public void run(Object self, Object[] args) {
                if (self instanceof HttpClientRequest) { // a client's request, not a server's response
                    ReactorNettyExchange.headersOut((ChannelOperations<?, ?>) self);
                }
            }
        });
        serve(BODY, new OnEntryMayReplace() {
            @Override
            public Object run(Object self, Object[] args) {
                return body(self, args);
            }
        });
    }

    /**
     * {@code ops.send(body)} or {@code ops.sendObject(body, flush)}: made here with the body that readies the request
     * when subscribed ({@link ReactorNettyExchange#bodySent}); as it is for anything but an attempt of the loop's. The
     * call made here runs the method's own body (the hook is not re-entered for the same request on this thread).
     */
    @SuppressWarnings("unchecked")
    static Object body(Object self, Object[] args) {
        if (!(self instanceof HttpClientRequest)) {
            return Hooks.PROCEED; // a server's response
        }
        Publisher<?> readied = ReactorNettyExchange.bodySent((ChannelOperations<?, ?>) self, (Publisher<?>) args[0]);
        if (readied == null) {
            return Hooks.PROCEED;
        }
        ChannelOperations<?, ?> ops = (ChannelOperations<?, ?>) self;
        return args.length == 1 ? ops.send((Publisher<? extends ByteBuf>) readied)
                : ops.sendObject(readied, (Predicate<Object>) args[1]);
    }

    /**
     * {@code client.connect()}: the request it assembles, wrapped so that each subscription is a call the retry loop
     * runs; the request itself for a web socket, or when the agent is not running. The assembly is {@code connect()}'s
     * own: called here again, it runs its body (the hook is not re-entered for the same client on this thread).
     */
    static Object connect(HttpClient client) {
        if (client == null || CONNECT_METHOD == null || RetryRuntime.engine() == null || RetryRuntime.asyncLoop() == null
                || client.configuration().websocketClientSpec() != null) {
            return Hooks.PROCEED;
        }
        Mono<? extends Connection> request = assemble(client);
        return request == null ? Hooks.PROCEED : new RetryingConnect(client, request);
    }

    @SuppressWarnings("unchecked")
    private static Mono<? extends Connection> assemble(HttpClient client) {
        try {
            return (Mono<? extends Connection>) CONNECT_METHOD.invoke(client);
        } catch (InvocationTargetException e) {
            throw new Hooks.Propagate(e.getCause()); // connect()'s own exception, as without the agent
        } catch (IllegalAccessException e) {
            RetryLog.internalError(ClientNames.REACTOR_NETTY + ".connect", e);
            return null;
        }
    }

    private static Method connectMethod() {
        try {
            Method m = Class.forName(ReactorNettyInstrumentation.CONNECT_CLASS, false, HttpClient.class.getClassLoader())
                    .getDeclaredMethod("connect");
            m.setAccessible(true);
            return m;
        } catch (Exception e) {
            RetryLog.internalError(ClientNames.REACTOR_NETTY + ".connect", e, "Reactor Netty's calls are not retried");
            return null;
        } catch (LinkageError e) {
            RetryLog.internalError(ClientNames.REACTOR_NETTY + ".connect", e, "Reactor Netty's calls are not retried");
            return null;
        }
    }
}
