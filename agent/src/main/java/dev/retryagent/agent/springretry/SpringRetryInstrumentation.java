package dev.retryagent.agent.springretry;

import dev.retryagent.agent.instrument.ClientInstrumentation;
import dev.retryagent.agent.instrument.HookPoint;

/**
 * Spring Retry's loop, a retry layer above the client (SPEC 4.14): the protected
 * {@code org.springframework.retry.support.RetryTemplate.doExecute(RetryCallback, RecoveryCallback, RetryState)},
 * which every {@code execute} overload of the template calls once per call and which runs the attempts in its
 * {@code while (canRetry(...))} loop on the caller's thread. The same descriptor in 1.3.4 and 2.0.13 (checked on both
 * jars). {@code @Retryable} methods go through the same template ({@code RetryOperationsInterceptor}). See the
 * package documentation. Names no Spring type.
 */
public final class SpringRetryInstrumentation extends ClientInstrumentation {
    static final String RETRY_TEMPLATE = "org.springframework.retry.support.RetryTemplate";
    static final String DO_EXECUTE_DESCRIPTOR = "(Lorg/springframework/retry/RetryCallback;"
            + "Lorg/springframework/retry/RecoveryCallback;Lorg/springframework/retry/RetryState;)Ljava/lang/Object;";

    public SpringRetryInstrumentation() {
        super(SpringRetryHooks.LAYER, "dev.retryagent.agent.springretry.SpringRetryHooks",
                HookPoint.retryLoop(SpringRetryHooks.DO_EXECUTE, RETRY_TEMPLATE, "doExecute", DO_EXECUTE_DESCRIPTOR));
    }
}
