package dev.retryagent.agent.layers.feign;

import dev.retryagent.agent.bootloader.runtime.Hooks;
import dev.retryagent.agent.bootloader.weaving.PerClassLookup;
import dev.retryagent.agent.bootloader.weaving.RetryLoopHandler;
import dev.retryagent.engine.LayerRetries.Failures;
import dev.retryagent.engine.LayerRetries.Statuses;
import dev.retryagent.engine.LayerRetries;
import dev.retryagent.engine.UpperLayer;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * Says whether a run of {@code SynchronousMethodHandler.invoke} is Feign retrying ({@value #LAYER}) or a handler
 * whose retryer never retries ({@link UpperLayer#RETRIES_OFF}): {@code Retryer.NEVER_RETRY} (Spring Cloud
 * OpenFeign's default), or Feign's own {@code Retryer.Default} built with {@code maxAttempts} 1; and, for Feign
 * retrying, what it retries ({@link LayerRetries}): Feign retries what becomes a {@code RetryableException}, every
 * I/O error of its client and what the {@code ErrorDecoder} makes one. Feign's own decoder does so for a response with
 * a {@code Retry-After} it can read, and for no other; so, with that decoder and no response interceptor around it, a
 * response without {@code Retry-After} is known not to be retried, whatever the retryer (it only sees
 * {@code RetryableException}s). Any other decoder, or an interceptor chain, is an application's classification: not
 * known. By reflection only (the retryer and the decoder are private); the lookups are made once per handler class and
 * kept ({@link PerClassLookup}), so that a call costs a few field reads.
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
    static final String RESPONSE_HANDLER_FIELD = "responseHandler";
    static final String ERROR_DECODER_FIELD = "errorDecoder";
    static final String EXECUTION_CHAIN_FIELD = "executionChain";
    static final String DEFAULT_CHAIN = "DEFAULT";
    /** Feign's own decoder, {@code ErrorDecoder.Default}; from 13.9.1 an empty subclass of the second. */
    static final String DEFAULT_ERROR_DECODER = "feign.codec.ErrorDecoder$Default";
    static final String DEFAULT_ERROR_DECODER_BASE = "feign.codec.DefaultErrorDecoder";

    /** Feign's own retryer and decoder: every I/O error, a response only with {@code Retry-After}. */
    static final LayerRetries FEIGNS_OWN = LayerRetries.of(LAYER, Failures.RETRIED, Statuses.WITH_RETRY_AFTER);
    /** Feign's own decoder, an application's retryer: which {@code RetryableException}s it retries is its own. */
    static final LayerRetries FEIGNS_DECODER = LayerRetries.of(LAYER, Failures.UNKNOWN, Statuses.WITH_RETRY_AFTER);
    /** An application's decoder or response interceptors: nothing known of what becomes retryable. */
    static final LayerRetries NOT_KNOWN = LayerRetries.unknown(LAYER);
    static {
        Hooks.register(FeignHooks.class, new FeignHooks());
    }

    public FeignHooks() {
        super(INVOKE);
    }

    /** How to read the retryer and the classification of one method handler class. */
    private static final PerClassLookup<HandlerReader> READERS = new PerClassLookup<HandlerReader>() {
        @Override
        protected HandlerReader computeValue(Class<?> handlerClass) {
            return HandlerReader.of(handlerClass);
        }
    };

    /** Whether an error decoder class is Feign's own. */
    private static final PerClassLookup<Boolean> FEIGNS_DECODER_CLASS = new PerClassLookup<Boolean>() {
        @Override
        protected Boolean computeValue(Class<?> decoderClass) {
            String name = decoderClass.getName();
            return DEFAULT_ERROR_DECODER.equals(name) || DEFAULT_ERROR_DECODER_BASE.equals(name);
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
        LayerRetries layer = retriesOf(hook, self);
        return layer == null ? null : layer.layer();
    }

    @Override
    protected LayerRetries retriesOf(String hook, Object self) throws ReflectiveOperationException {
        HandlerReader reader = READERS.of(self.getClass());
        Object retryer = reader.retryer(self);
        if (retryer == null) {
            return null;
        }
        if (retryerLayer(retryer, reader.neverRetry) == UpperLayer.RETRIES_OFF) {
            return LayerRetries.RETRIES_OFF;
        }
        if (!reader.feignClassifies(self)) {
            return NOT_KNOWN;
        }
        return MAX_ATTEMPTS.of(retryer.getClass()).length == 1 ? FEIGNS_OWN : FEIGNS_DECODER;
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
     * {@code Retryer.NEVER_RETRY} of the same class loader. And its classification: its private
     * {@code ResponseHandler responseHandler} (12.5 on), whose private {@code errorDecoder} and, from 13.0, the
     * {@code ResponseInterceptor.Chain executionChain} the response goes through ({@code Chain.DEFAULT} when the
     * application added no response interceptor and no capability wrapped it); where these are not there, the
     * classification is not known.
     */
    static final class HandlerReader {
        private final Field direct;
        private final Field configuration;
        private final Method getRetryer;
        final Object neverRetry;
        /** The handler's {@code responseHandler}, its class's {@code errorDecoder} and {@code executionChain}. */
        private final Field responseHandler;
        private final Field errorDecoder;
        private final Field executionChain;
        private final Object defaultChain;

        private HandlerReader(Field direct, Field configuration, Method getRetryer, Object neverRetry,
                              Field[] classification, Object defaultChain) {
            this.direct = direct;
            this.configuration = configuration;
            this.getRetryer = getRetryer;
            this.neverRetry = neverRetry;
            this.responseHandler = classification == null ? null : classification[0];
            this.errorDecoder = classification == null ? null : classification[1];
            this.executionChain = classification == null ? null : classification[2];
            this.defaultChain = defaultChain;
        }

        static HandlerReader of(Class<?> handlerClass) {
            try {
                Field[] classification = classification(handlerClass);
                Object defaultChain = classification == null ? null
                        : classification[2].getType().getField(DEFAULT_CHAIN).get(null);
                Field direct = PerClassLookup.accessibleField(handlerClass, RETRYER_FIELD);
                if (direct != null) {
                    return new HandlerReader(direct, null, null, neverRetry(direct.getType()), classification,
                            defaultChain);
                }
                Field configuration = PerClassLookup.accessibleField(handlerClass, CONFIGURATION_FIELD);
                if (configuration == null) {
                    throw new IllegalStateException(handlerClass.getName() + " has neither " + RETRYER_FIELD
                            + " nor " + CONFIGURATION_FIELD);
                }
                Method getRetryer = configuration.getType().getMethod("getRetryer");
                return new HandlerReader(null, configuration, getRetryer, neverRetry(getRetryer.getReturnType()),
                        classification, defaultChain);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot read the retryer of " + handlerClass.getName(), e);
            }
        }

        /** The three fields of {@link HandlerReader}'s classification, or null when the handler has not all. */
        private static Field[] classification(Class<?> handlerClass) {
            Field handler = PerClassLookup.accessibleField(handlerClass, RESPONSE_HANDLER_FIELD);
            if (handler == null) {
                return null;
            }
            Field decoder = PerClassLookup.accessibleField(handler.getType(), ERROR_DECODER_FIELD);
            Field chain = PerClassLookup.accessibleField(handler.getType(), EXECUTION_CHAIN_FIELD);
            return decoder == null || chain == null ? null : new Field[] {handler, decoder, chain};
        }

        /**
         * Whether Feign's own classification decides what {@code handler} retries: its response handler (of Feign's
         * class, not a subclass) has Feign's own error decoder and the chain without response interceptors.
         */
        boolean feignClassifies(Object handler) throws IllegalAccessException {
            if (responseHandler == null) {
                return false;
            }
            Object responses = responseHandler.get(handler);
            if (responses == null || responses.getClass() != responseHandler.getType()
                    || executionChain.get(responses) != defaultChain) {
                return false;
            }
            Object decoder = errorDecoder.get(responses);
            return decoder != null && FEIGNS_DECODER_CLASS.of(decoder.getClass());
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
