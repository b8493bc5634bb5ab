package dev.retryagent.agent.failsafe;

import dev.retryagent.agent.instrument.ClientInstrumentation;
import dev.retryagent.agent.instrument.HookPoint;

/**
 * What the agent hooks in Failsafe: the synchronous execution of a {@code FailsafeExecutor}, a
 * {@link HookPoint#retryLoop} (see the package documentation for why there). Names no Failsafe type.
 *
 * <ul>
 *   <li>Failsafe 3 ({@code dev.failsafe:failsafe}): {@code dev.failsafe.SyncExecutionImpl.executeSync()}, which
 *       returns the result from 3.1 on and the {@code ExecutionResult} in 3.0: both descriptors;</li>
 *   <li>Failsafe 2.4 ({@code net.jodah:failsafe}): the private {@code net.jodah.failsafe.FailsafeExecutor.call(Function)}.</li>
 * </ul>
 */
public final class FailsafeInstrumentation extends ClientInstrumentation {
    static final String SYNC_EXECUTION = "dev.failsafe.SyncExecutionImpl";
    static final String EXECUTOR_2 = "net.jodah.failsafe.FailsafeExecutor";

    public FailsafeInstrumentation() {
        super(FailsafeHooks.LAYER, "dev.retryagent.agent.failsafe.FailsafeHooks",
                HookPoint.retryLoop(FailsafeHooks.SYNC, SYNC_EXECUTION, "executeSync", "()Ljava/lang/Object;"),
                HookPoint.retryLoop(FailsafeHooks.SYNC, SYNC_EXECUTION, "executeSync",
                        "()Ldev/failsafe/spi/ExecutionResult;"),
                HookPoint.retryLoop(FailsafeHooks.SYNC_2, EXECUTOR_2, "call",
                        "(Ljava/util/function/Function;)Ljava/lang/Object;"));
    }
}
