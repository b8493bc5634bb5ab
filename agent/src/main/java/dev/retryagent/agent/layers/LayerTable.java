package dev.retryagent.agent.layers;

import static dev.retryagent.agent.bootloader.weaving.HookPoint.retryLoop;

import dev.retryagent.agent.bootloader.weaving.ClientInstrumentation;
import dev.retryagent.agent.bootloader.weaving.HookPoint;
import dev.retryagent.agent.layers.awssdk1.AwsSdk1Hooks;
import dev.retryagent.agent.layers.awssdk2.AwsSdk2Hooks;
import dev.retryagent.agent.layers.azure.AzureHooks;
import dev.retryagent.agent.layers.elasticsearch.ElasticsearchHooks;
import dev.retryagent.agent.layers.failsafe.FailsafeHooks;
import dev.retryagent.agent.layers.feign.FeignHooks;
import dev.retryagent.agent.layers.googlehttp.GoogleHttpHooks;
import dev.retryagent.agent.layers.resilience4j.Resilience4jHooks;
import dev.retryagent.agent.layers.springframeworkretry.SpringFrameworkRetryHooks;
import dev.retryagent.agent.layers.springretry.SpringRetryHooks;
import dev.retryagent.engine.UpperLayer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The retry layers above the clients (docs/reference.md#layers-above-the-client) and where each is hooked, as one
 * table: per layer its name, its handler (the {@code *Hooks} class of the layer's package, loaded when a class of its
 * library is woven) and its {@link HookPoint#retryLoop}s. One class for all of them because each class premain loads
 * from the agent jar is read, defined and verified there (about 0.4 ms each). Why each method is the loop, and how its
 * handler tells a loop whose retries are off: the layer's package documentation. Names no library type; the handlers
 * are named by string, since a class literal would load them at premain.
 */
public final class LayerTable {
    private static final String STAGES = "software.amazon.awssdk.core.internal.http.pipeline.stages.";
    /** Failsafe 3.1+ returns the result from {@code executeSync()}, 3.0 its {@code ExecutionResult}. */
    private static final String FAILSAFE_RESULT = "()Ljava/lang/Object;";
    private static final String FAILSAFE_3_0_RESULT = "()Ldev/failsafe/spi/ExecutionResult;";

    private static final String R = "Lio/github/resilience4j/retry/Retry;";
    private static final String OBJECT = "Ljava/lang/Object;";
    private static final String SUPPLIER = "Ljava/util/function/Supplier;";
    private static final String CALLABLE = "Ljava/util/concurrent/Callable;";
    private static final String RUNNABLE = "Ljava/lang/Runnable;";
    private static final String FUNCTION = "Ljava/util/function/Function;";
    private static final String CONSUMER = "Ljava/util/function/Consumer;";
    private static final String VAVR = "Lio/vavr/";
    private static final String CORE = "Lio/github/resilience4j/core/functions/";

    /**
     * Resilience4j's loops in {@code Retry}: name and descriptor of each synthetic lambda body a static
     * {@code Retry.decorateX} returns (javac's numbering, as compiled in the released jars; the versions that have
     * each are noted), then the default {@code executeX} methods, which call {@code decorateX(this, ...)}'s lambda
     * and so keep the common {@code retry.executeX(...)} covered should a later release renumber its lambdas.
     */
    private static final String[][] RESILIENCE4J_LOOPS = {
            // 1.5.0 - 1.7.1 (vavr's functional types; the serializable lambdas carry javac's hash in their name)
            {"lambda$decorateCheckedSupplier$3f69f149$1", "(" + R + VAVR + "CheckedFunction0;)" + OBJECT},
            {"lambda$decorateCheckedRunnable$1", "(" + R + VAVR + "CheckedRunnable;)V"},
            {"lambda$decorateCheckedFunction$7bb28b04$1", "(" + R + VAVR + "CheckedFunction1;" + OBJECT + ")" + OBJECT},
            {"lambda$decorateSupplier$2", "(" + R + SUPPLIER + ")" + OBJECT},
            {"lambda$decorateEitherSupplier$3", "(" + R + SUPPLIER + ")" + VAVR + "control/Either;"},
            {"lambda$decorateTrySupplier$4", "(" + R + SUPPLIER + ")" + VAVR + "control/Try;"},
            // 1.5.0 - 2.2.0
            {"lambda$decorateCallable$5", "(" + R + CALLABLE + ")" + OBJECT},
            {"lambda$decorateRunnable$6", "(" + R + RUNNABLE + ")V"},
            {"lambda$decorateFunction$7", "(" + R + FUNCTION + OBJECT + ")" + OBJECT},
            // 2.0.0 - 2.4.0 (resilience4j-core's functional types)
            {"lambda$decorateCheckedSupplier$1", "(" + R + CORE + "CheckedSupplier;)" + OBJECT},
            {"lambda$decorateCheckedRunnable$2", "(" + R + CORE + "CheckedRunnable;)V"},
            {"lambda$decorateCheckedFunction$3", "(" + R + CORE + "CheckedFunction;" + OBJECT + ")" + OBJECT},
            // 2.0.0 - 2.2.0
            {"lambda$decorateSupplier$4", "(" + R + SUPPLIER + ")" + OBJECT},
            // 2.3.0 - 2.4.0
            {"lambda$decorateCheckedConsumer$4", "(" + R + CORE + "CheckedConsumer;" + OBJECT + ")V"},
            {"lambda$decorateSupplier$5", "(" + R + SUPPLIER + ")" + OBJECT},
            {"lambda$decorateCallable$6", "(" + R + CALLABLE + ")" + OBJECT},
            {"lambda$decorateRunnable$7", "(" + R + RUNNABLE + ")V"},
            {"lambda$decorateFunction$8", "(" + R + FUNCTION + OBJECT + ")" + OBJECT},
            {"lambda$decorateConsumer$9", "(" + R + CONSUMER + OBJECT + ")V"},
            // The default methods (every version listed above)
            {"executeSupplier", "(" + SUPPLIER + ")" + OBJECT},
            {"executeCallable", "(" + CALLABLE + ")" + OBJECT},
            {"executeRunnable", "(" + RUNNABLE + ")V"},
            {"executeCheckedSupplier", "(" + VAVR + "CheckedFunction0;)" + OBJECT},
            {"executeCheckedSupplier", "(" + CORE + "CheckedSupplier;)" + OBJECT},
            {"executeEitherSupplier", "(" + SUPPLIER + ")" + VAVR + "control/Either;"},
            {"executeTrySupplier", "(" + SUPPLIER + ")" + VAVR + "control/Try;"},
    };

    private LayerTable() {
    }

    /** Every retry layer the agent recognises, each a description of its own as the clients have. */
    public static List<ClientInstrumentation> all() {
        List<ClientInstrumentation> layers = new ArrayList<ClientInstrumentation>();
        layers.add(new ClientInstrumentation(Resilience4jHooks.LAYER,
                "dev.retryagent.agent.layers.resilience4j.Resilience4jHooks", resilience4jLoops()));
        // The synchronous execution of a FailsafeExecutor: Failsafe 3's SyncExecutionImpl.executeSync() (both
        // descriptors), Failsafe 2.4's private FailsafeExecutor.call(Function).
        layers.add(new ClientInstrumentation(FailsafeHooks.LAYER, "dev.retryagent.agent.layers.failsafe.FailsafeHooks",
                retryLoop(FailsafeHooks.SYNC, FailsafeHooks.SYNC_EXECUTION, "executeSync", FAILSAFE_RESULT),
                retryLoop(FailsafeHooks.SYNC, FailsafeHooks.SYNC_EXECUTION, "executeSync", FAILSAFE_3_0_RESULT),
                retryLoop(FailsafeHooks.SYNC_2, FailsafeHooks.EXECUTOR_2, "call",
                        "(Ljava/util/function/Function;)Ljava/lang/Object;")));
        // The synchronous path of azure-core's RetryPolicy.
        layers.add(new ClientInstrumentation(AzureHooks.LAYER, "dev.retryagent.agent.layers.azure.AzureHooks",
                retryLoop(AzureHooks.PROCESS_SYNC, AzureHooks.RETRY_POLICY, "processSync",
                        "(Lcom/azure/core/http/HttpPipelineCallContext;Lcom/azure/core/http/HttpPipelineNextSyncPolicy;)"
                                + "Lcom/azure/core/http/HttpResponse;")));
        // Feign 11.x - 13.x: invoke encloses every attempt (the loop itself up to 13.12, runWithRetry's caller in
        // 13.13).
        layers.add(new ClientInstrumentation(FeignHooks.LAYER, "dev.retryagent.agent.layers.feign.FeignHooks",
                retryLoop(FeignHooks.INVOKE, "feign.SynchronousMethodHandler", "invoke",
                        "([Ljava/lang/Object;)Ljava/lang/Object;")));
        // Spring Retry 1.3 and 2.0: the template's protected doExecute, where every execute overload ends.
        layers.add(new ClientInstrumentation(SpringRetryHooks.LAYER,
                "dev.retryagent.agent.layers.springretry.SpringRetryHooks",
                retryLoop(SpringRetryHooks.DO_EXECUTE, SpringRetryHooks.RETRY_TEMPLATE, "doExecute",
                        "(Lorg/springframework/retry/RetryCallback;Lorg/springframework/retry/RecoveryCallback;"
                                + "Lorg/springframework/retry/RetryState;)Ljava/lang/Object;")));
        // Spring Framework 7's RetryTemplate.execute(Retryable), which invoke(Supplier) and invoke(Runnable) call.
        layers.add(new ClientInstrumentation(SpringFrameworkRetryHooks.LAYER,
                "dev.retryagent.agent.layers.springframeworkretry.SpringFrameworkRetryHooks",
                retryLoop(SpringFrameworkRetryHooks.EXECUTE, "org.springframework.core.retry.RetryTemplate",
                        "execute", "(Lorg/springframework/core/retry/Retryable;)Ljava/lang/Object;")));
        // The AWS SDK v2's synchronous stage: RetryableStage (every 2.x), RetryableStage2 (2.26 - 2.29).
        String stageExecute = "(Lsoftware/amazon/awssdk/http/SdkHttpFullRequest;"
                + "Lsoftware/amazon/awssdk/core/internal/http/RequestExecutionContext;)"
                + "Lsoftware/amazon/awssdk/core/Response;";
        layers.add(new ClientInstrumentation(UpperLayer.AWS_SDK_V2, "dev.retryagent.agent.layers.awssdk2.AwsSdk2Hooks",
                retryLoop(AwsSdk2Hooks.RETRYABLE_STAGE, STAGES + "RetryableStage", "execute", stageExecute),
                retryLoop(AwsSdk2Hooks.RETRYABLE_STAGE2, STAGES + "RetryableStage2", "execute", stageExecute)));
        // The AWS SDK v1's loop around its Apache HttpClient 4.
        layers.add(new ClientInstrumentation(UpperLayer.AWS_SDK_V1, "dev.retryagent.agent.layers.awssdk1.AwsSdk1Hooks",
                retryLoop(AwsSdk1Hooks.EXECUTE_HELPER, "com.amazonaws.http.AmazonHttpClient$RequestExecutor", "executeHelper",
                        "()Lcom/amazonaws/Response;")));
        // google-http-client's HttpRequest.execute(), around its transport's HTTP client.
        layers.add(new ClientInstrumentation(GoogleHttpHooks.LAYER, "dev.retryagent.agent.layers.googlehttp.GoogleHttpHooks",
                retryLoop(GoogleHttpHooks.EXECUTE, "com.google.api.client.http.HttpRequest", "execute",
                        "()Lcom/google/api/client/http/HttpResponse;")));
        // The Elasticsearch low-level REST client's node loop: performRequest(Request) (sync, recursing once per
        // node), the private performRequestAsync (async, entered once per node).
        String restClient = "org.elasticsearch.client.RestClient";
        layers.add(new ClientInstrumentation(ElasticsearchHooks.LAYER,
                "dev.retryagent.agent.layers.elasticsearch.ElasticsearchHooks",
                retryLoop(ElasticsearchHooks.PERFORM_REQUEST, restClient, "performRequest",
                        "(Lorg/elasticsearch/client/Request;)Lorg/elasticsearch/client/Response;"),
                retryLoop(ElasticsearchHooks.PERFORM_REQUEST_ASYNC, restClient, "performRequestAsync",
                        "(Lorg/elasticsearch/client/RestClient$NodeTuple;"
                                + "Lorg/elasticsearch/client/RestClient$InternalRequest;"
                                + "Lorg/elasticsearch/client/RestClient$FailureTrackingResponseListener;)V")));
        return Collections.unmodifiableList(layers);
    }

    /** The layer {@code name} of {@link #all()}. */
    public static ClientInstrumentation named(String name) {
        for (ClientInstrumentation layer : all()) {
            if (layer.name().equals(name)) {
                return layer;
            }
        }
        throw new IllegalArgumentException("no retry layer " + name);
    }

    private static HookPoint[] resilience4jLoops() {
        HookPoint[] points = new HookPoint[RESILIENCE4J_LOOPS.length];
        for (int i = 0; i < points.length; i++) {
            points[i] = retryLoop(Resilience4jHooks.RETRY_LOOP, "io.github.resilience4j.retry.Retry",
                    RESILIENCE4J_LOOPS[i][0], RESILIENCE4J_LOOPS[i][1]);
        }
        return points;
    }
}
