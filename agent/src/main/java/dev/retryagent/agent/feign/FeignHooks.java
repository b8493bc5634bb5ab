package dev.retryagent.agent.feign;

import dev.retryagent.agent.bootstrap.Hooks;
import dev.retryagent.agent.instrument.PerClassLookup;
import dev.retryagent.agent.instrument.RetryLoopHandler;
import dev.retryagent.engine.UpperLayer;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * Says whether a run of {@code SynchronousMethodHandler.invoke} is Feign retrying ({@value #LAYER}) or a handler
 * whose retryer never retries ({@link UpperLayer#RETRIES_OFF}): {@code Retryer.NEVER_RETRY} (Spring Cloud
 * OpenFeign's default), or Feign's own {@code Retryer.Default} built with {@code maxAttempts} 1. By reflection only
 * (the retryer is private); the lookups are made once per handler class and kept ({@link PerClassLookup}), so that a
 * call costs two field reads and, for {@code Retryer.Default}, a third.
 */
public final class FeignHooks extends RetryLoopHandler {
    public static final String INVOKE = "feign.invoke";
    /** The layer's name in logs ({@code reason=upper-layer layer=feign}). */
    public static final String LAYER = "feign";

    static final String RETRYER_FIELD = "retryer";
    static final String CONFIGURATION_FIELD = "methodHandlerConfiguration";
    static final String NEVER_RETRY = "NEVER_RETRY";
    static final String MAX_ATTEMPTS_FIELD = "maxAttempts";
    /** Feign's own retryer, {@code Retryer.Default}; in 13.12 an empty subclass of {@code DefaultRetryer}. */
    static final String DEFAULT_RETRYER = "feign.Retryer$Default";
    static final String DEFAULT_RETRYER_BASE = "feign.DefaultRetryer";

    static {
        Hooks.register(FeignHooks.class, new FeignHooks());
    }

    public FeignHooks() {
        super(INVOKE);
    }

    /** How to read the retryer of one method handler class. */
    private static final PerClassLookup<RetryerReader> READERS = new PerClassLookup<RetryerReader>() {
        @Override
        protected RetryerReader computeValue(Class<?> handlerClass) {
            return RetryerReader.of(handlerClass);
        }
    };

    /**
     * The {@code maxAttempts} field of Feign's own retryer classes, in a one-element array; empty for any other
     * retryer (an application's subclass may retry as it likes).
     */
    private static final PerClassLookup<Field[]> MAX_ATTEMPTS = new PerClassLookup<Field[]>() {
        @Override
        protected Field[] computeValue(Class<?> retryerClass) {
            String name = retryerClass.getName();
            if (!DEFAULT_RETRYER.equals(name) && !DEFAULT_RETRYER_BASE.equals(name)) {
                return new Field[0];
            }
            // 13.x: Retryer.Default is an empty subclass of DefaultRetryer, which holds the field.
            for (Class<?> c = retryerClass; c != null; c = c.getSuperclass()) {
                Field f = PerClassLookup.accessibleField(c, MAX_ATTEMPTS_FIELD);
                if (f != null && f.getType() == int.class) {
                    return new Field[] {f};
                }
            }
            return new Field[0];
        }
    };

    @Override
    protected String layerOf(String hook, Object self) throws ReflectiveOperationException {
        RetryerReader reader = READERS.of(self.getClass());
        Object retryer = reader.retryer(self);
        return retryer == null ? null : retryerLayer(retryer, reader.neverRetry);
    }

    /** {@value #LAYER} for a retryer that retries, {@link UpperLayer#RETRIES_OFF} for one that never does. */
    static String retryerLayer(Object retryer, Object neverRetry) throws IllegalAccessException {
        if (retryer == neverRetry) {
            return UpperLayer.RETRIES_OFF;
        }
        Field[] max = MAX_ATTEMPTS.of(retryer.getClass());
        if (max.length == 1 && max[0].getInt(retryer) <= 1) {
            return UpperLayer.RETRIES_OFF;
        }
        return LAYER;
    }

    /**
     * The handler's retryer: its own private field {@code retryer} (11.10 to 13.1 checked), or the one of its private
     * {@code MethodHandlerConfiguration} ({@code getRetryer()}, 13.5 to 13.13 checked); and
     * {@code Retryer.NEVER_RETRY} of the same class loader.
     */
    static final class RetryerReader {
        private final Field direct;
        private final Field configuration;
        private final Method getRetryer;
        final Object neverRetry;

        private RetryerReader(Field direct, Field configuration, Method getRetryer, Object neverRetry) {
            this.direct = direct;
            this.configuration = configuration;
            this.getRetryer = getRetryer;
            this.neverRetry = neverRetry;
        }

        static RetryerReader of(Class<?> handlerClass) {
            try {
                Field direct = PerClassLookup.accessibleField(handlerClass, RETRYER_FIELD);
                if (direct != null) {
                    return new RetryerReader(direct, null, null, neverRetry(direct.getType()));
                }
                Field configuration = PerClassLookup.accessibleField(handlerClass, CONFIGURATION_FIELD);
                if (configuration == null) {
                    throw new IllegalStateException(handlerClass.getName() + " has neither " + RETRYER_FIELD
                            + " nor " + CONFIGURATION_FIELD);
                }
                Method getRetryer = configuration.getType().getMethod("getRetryer");
                return new RetryerReader(null, configuration, getRetryer, neverRetry(getRetryer.getReturnType()));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot read the retryer of " + handlerClass.getName(), e);
            }
        }

        Object retryer(Object handler) throws ReflectiveOperationException {
            if (direct != null) {
                return direct.get(handler);
            }
            Object config = configuration.get(handler);
            return config == null ? null : getRetryer.invoke(config);
        }

        private static Object neverRetry(Class<?> retryerInterface) throws ReflectiveOperationException {
            return retryerInterface.getField(NEVER_RETRY).get(null);
        }
    }
}
