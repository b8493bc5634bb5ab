package dev.retryagent.agent.resilience4j;

import dev.retryagent.agent.instrument.ClientInstrumentation;
import dev.retryagent.agent.instrument.HookPoint;
import java.util.ArrayList;
import java.util.List;

/**
 * What the agent hooks in Resilience4j Retry ({@code io.github.resilience4j:resilience4j-retry} 1.5 through 2.4):
 * retry loops only, each a {@link HookPoint#retryLoop} in the interface {@code io.github.resilience4j.retry.Retry}
 * (see the package documentation for why there). Names no Resilience4j type.
 */
public final class Resilience4jInstrumentation extends ClientInstrumentation {
    static final String RETRY = "io.github.resilience4j.retry.Retry";

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
     * The loops: name and descriptor of each synthetic lambda body a static {@code Retry.decorateX} returns (javac's
     * numbering, as compiled in the released jars; the versions that have each are noted), then the default
     * {@code executeX} methods, which call {@code decorateX(this, ...)}'s lambda and so keep the common
     * {@code retry.executeX(...)} covered should a later release renumber its lambdas.
     */
    static final String[][] LOOPS = {
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

    public Resilience4jInstrumentation() {
        super(Resilience4jHooks.LAYER, "dev.retryagent.agent.resilience4j.Resilience4jHooks", loops());
    }

    private static HookPoint[] loops() {
        List<HookPoint> points = new ArrayList<HookPoint>();
        for (String[] loop : LOOPS) {
            points.add(HookPoint.retryLoop(Resilience4jHooks.RETRY_LOOP, RETRY, loop[0], loop[1]));
        }
        return points.toArray(new HookPoint[0]);
    }
}
