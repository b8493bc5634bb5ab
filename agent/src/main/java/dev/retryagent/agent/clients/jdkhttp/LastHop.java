package dev.retryagent.agent.clients.jdkhttp;

import dev.retryagent.agent.bootloader.weaving.PerClassLookup;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.ClientNames;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.util.Locale;

/**
 * Where the response an attempt's handler is applied to was sent. With {@code followRedirects(NORMAL or ALWAYS)} the
 * client follows redirects inside one {@code send}, in its {@code MultiExchange}, which keeps the hop it sends in
 * {@code currentreq}; {@code BodyHandler.apply(ResponseInfo)}, where the adapter decides, carries no URI. So the entry
 * of {@code MultiExchange.responseAsync(Executor)} (every {@code send}/{@code sendAsync} starts there) ties the
 * exchange to the agent's attempt whose handler it holds, and the decision reads the exchange's current request.
 * Anything unexpected there fails open to the rule of the request the application made.
 */
final class LastHop {
    private static final String WHERE = ClientNames.JDK_HTTPCLIENT + ".redirect";
    /** {@code MultiExchange.currentreq}, made accessible. */
    private static final PerClassLookup<Field> CURRENT_REQUEST = new PerClassLookup<Field>() {
        @Override
        protected Field computeValue(Class<?> multiExchange) {
            try {
                Field f = multiExchange.getDeclaredField("currentreq");
                f.setAccessible(true);
                return f;
            } catch (NoSuchFieldException e) {
                throw new IllegalStateException("MultiExchange has no currentreq", e);
            }
        }
    };
    private static volatile boolean missing;

    private LastHop() {
    }

    /** The agent's attempt whose {@code BodyHandler} {@code multiExchange} applies, or null for the application's. */
    static JdkHttpAsyncExchange.Attempt attemptOf(Object multiExchange) throws IllegalAccessException {
        Object handler = JdkHttpApi.of(multiExchange.getClass()).exchangeHandler(multiExchange);
        if (handler == null || !Proxy.isProxyClass(handler.getClass())) {
            return null;
        }
        InvocationHandler attempt = Proxy.getInvocationHandler(handler);
        return attempt instanceof JdkHttpAsyncExchange.Attempt ? (JdkHttpAsyncExchange.Attempt) attempt : null;
    }

    /** At the entry of {@code MultiExchange.responseAsync}: an attempt of the agent's learns its exchange. */
    static void exchangeStarts(Object multiExchange) throws IllegalAccessException {
        JdkHttpAsyncExchange.Attempt attempt = attemptOf(multiExchange);
        if (attempt != null) {
            attempt.exchange = multiExchange;
        }
    }

    /**
     * {@code call}, or its facts at the address the exchange sent its last request to, when a redirect took it
     * elsewhere ({@link CallFacts#redirectedTo}).
     */
    static CallFacts decidedUnder(JdkHttpApi api, CallFacts call, Object multiExchange) {
        if (multiExchange == null || missing) {
            return call;
        }
        try {
            Object sent = CURRENT_REQUEST.of(multiExchange.getClass()).get(multiExchange);
            URI uri = sent == null ? null : api.uri(sent);
            if (uri == null || uri.getHost() == null) {
                return call;
            }
            String scheme = uri.getScheme() == null ? "http" : uri.getScheme().toLowerCase(Locale.ROOT);
            int port = uri.getPort() >= 0 ? uri.getPort() : "https".equalsIgnoreCase(scheme) ? 443 : 80;
            return call.redirectedTo(scheme, uri.getHost(), port, uri.getRawPath());
        } catch (Exception | LinkageError e) {
            missing = true;
            RetryLog.internalError(WHERE, e, "responses after a redirect are decided under the rule of the request"
                    + " the application made");
            return call;
        }
    }
}
