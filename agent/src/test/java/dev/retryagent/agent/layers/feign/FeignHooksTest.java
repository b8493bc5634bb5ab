package dev.retryagent.agent.layers.feign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.retryagent.agent.layers.LayerTable;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.engine.LayerRetries;
import dev.retryagent.engine.LayerRetries;
import dev.retryagent.engine.LayerRetries.Failures;
import dev.retryagent.engine.LayerRetries.Statuses;
import dev.retryagent.engine.UpperLayer;
import feign.Feign;
import feign.RequestLine;
import feign.ResponseInterceptor;
import feign.RetryableException;
import feign.Retryer;
import feign.codec.ErrorDecoder;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;
import net.bytebuddy.jar.asm.Type;
import org.junit.jupiter.api.Test;

/**
 * The hooked loop, the retries-on/off answers and what is retried, against real Feign 13.12 method handlers (no
 * network).
 */
class FeignHooksTest {
    interface Items {
        @RequestLine("GET /items")
        String get();
    }

    private final FeignHooks hooks = new FeignHooks();

    @Test
    void theHookPointNamesTheRealLoop() throws Exception {
        HookPoint point = LayerTable.named(FeignHooks.LAYER).hookPoints().get(0);
        assertEquals(HookPoint.Where.RETRY_LOOP, point.where());
        Method invoke = Class.forName(point.className()).getDeclaredMethod(point.methodName(), Object[].class);
        assertEquals(point.descriptor(), Type.getMethodDescriptor(invoke));
        assertEquals("feign", FeignHooks.LAYER);
    }

    @Test
    void aRetryingRetryerIsTheFeignLayer() {
        assertEquals("feign", layerOf(new Retryer.Default()));
        assertEquals("feign", layerOf(new Retryer.Default(10, 50, 5)));
        assertEquals("feign", layerOf(new Retryer.Default(10, 50, 2)));
    }

    @Test
    void neverRetryAndOneAttemptAreRetriesOff() {
        assertEquals(UpperLayer.RETRIES_OFF, layerOf(Retryer.NEVER_RETRY));
        assertEquals(UpperLayer.RETRIES_OFF, layerOf(new Retryer.Default(10, 50, 1)));
    }

    /** The application's own retryer, even a subclass of Feign's, retries as it likes: a layer. */
    @Test
    void anApplicationsRetryerIsALayer() {
        assertEquals("feign", layerOf(new Retryer.Default(10, 50, 1) {
            @Override
            public void continueOrPropagate(RetryableException e) {
            }
        }));
        assertEquals("feign", layerOf(new Retryer() {
            @Override
            public void continueOrPropagate(RetryableException e) {
            }

            @Override
            public Retryer clone() {
                return this;
            }
        }));
    }

    /**
     * Feign's own decoder makes a {@code RetryableException} of a response with {@code Retry-After} only, and the
     * retryer sees nothing else: a response without it is known not to be retried, whatever the retryer.
     */
    @Test
    void feignsOwnDecoderRetriesAResponseOnlyWithRetryAfter() {
        assertSame(FeignHooks.FEIGNS_OWN, retriesOf(Feign.builder().retryer(new Retryer.Default())));
        assertEquals(Failures.RETRIED, FeignHooks.FEIGNS_OWN.failures());
        assertEquals(Statuses.WITH_RETRY_AFTER, FeignHooks.FEIGNS_OWN.statuses());
        assertSame(FeignHooks.FEIGNS_OWN, retriesOf(Feign.builder().retryer(new Retryer.Default(10, 50, 2))
                .errorDecoder(new ErrorDecoder.Default())));
        LayerRetries ownRetryer = retriesOf(Feign.builder().retryer(new Retryer() {
            @Override
            public void continueOrPropagate(RetryableException e) {
            }

            @Override
            public Retryer clone() {
                return this;
            }
        }));
        assertSame(FeignHooks.FEIGNS_DECODER, ownRetryer);
        assertEquals(Failures.UNKNOWN, ownRetryer.failures(), "which RetryableExceptions it retries is its own");
        assertEquals(Statuses.WITH_RETRY_AFTER, ownRetryer.statuses());
    }

    @Test
    void anApplicationsDecoderOrResponseInterceptorIsNotKnown() {
        ErrorDecoder retryOn503 = (key, response) -> response.status() == 503
                ? new RetryableException(503, "503", response.request().httpMethod(), (Long) null, response.request())
                : new ErrorDecoder.Default().decode(key, response);
        LayerRetries decoder = retriesOf(Feign.builder().retryer(new Retryer.Default()).errorDecoder(retryOn503));
        assertSame(FeignHooks.NOT_KNOWN, decoder);
        assertEquals("feign", decoder.layer());
        assertEquals(Statuses.UNKNOWN, decoder.statuses());
        ResponseInterceptor passThrough = (context, chain) -> chain.next(context);
        assertSame(FeignHooks.NOT_KNOWN, retriesOf(Feign.builder().retryer(new Retryer.Default())
                .responseInterceptor(passThrough)));
        assertSame(LayerRetries.RETRIES_OFF, retriesOf(Feign.builder().retryer(Retryer.NEVER_RETRY)
                .errorDecoder(retryOn503)), "retries off, whatever its decoder");
    }

    @Test
    void nothingToReadIsNoLayer() {
        assertNull(hooks.retryLayer(FeignHooks.INVOKE, null, new Object[] {null}));
    }

    private LayerRetries retriesOf(Feign.Builder builder) {
        return hooks.retryLayer(FeignHooks.INVOKE, methodHandler(builder.target(Items.class, "http://127.0.0.1:9")),
                new Object[] {new Object[0]});
    }

    private String layerOf(Retryer retryer) {
        Items client = Feign.builder().retryer(retryer).target(Items.class, "http://127.0.0.1:9");
        LayerRetries layer = hooks.retryLayer(FeignHooks.INVOKE, methodHandler(client), new Object[] {new Object[0]});
        return layer == null ? null : layer.layer();
    }

    /** The {@code SynchronousMethodHandler} behind the proxy's one method. */
    private static Object methodHandler(Object proxy) {
        try {
            Object invocationHandler = Proxy.getInvocationHandler(proxy);
            Field dispatch = invocationHandler.getClass().getDeclaredField("dispatch");
            dispatch.setAccessible(true);
            Object handler = ((Map<?, ?>) dispatch.get(invocationHandler)).values().iterator().next();
            assertEquals(LayerTable.named(FeignHooks.LAYER).hookPoints().get(0).className(),
                    handler.getClass().getName());
            return handler;
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
