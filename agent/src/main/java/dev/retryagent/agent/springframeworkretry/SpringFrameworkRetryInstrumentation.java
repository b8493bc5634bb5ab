package dev.retryagent.agent.springframeworkretry;

import dev.retryagent.agent.instrument.ClientInstrumentation;
import dev.retryagent.agent.instrument.HookPoint;

/**
 * Spring Framework 7's own retry loop ({@code spring-core}, Java 17+), a retry layer above the client (SPEC 4.14):
 * {@code org.springframework.core.retry.RetryTemplate.execute(Retryable)}, which runs the first attempt and then the
 * {@code while (retryPolicy.shouldRetry(...))} loop on the caller's thread; {@code invoke(Supplier)} and
 * {@code invoke(Runnable)} call it. Checked on 7.0.10 (its source and jar). See the package documentation. Names no
 * Spring type.
 */
public final class SpringFrameworkRetryInstrumentation extends ClientInstrumentation {
    static final String RETRY_TEMPLATE = "org.springframework.core.retry.RetryTemplate";
    static final String EXECUTE_DESCRIPTOR = "(Lorg/springframework/core/retry/Retryable;)Ljava/lang/Object;";

    public SpringFrameworkRetryInstrumentation() {
        super(SpringFrameworkRetryHooks.LAYER, "dev.retryagent.agent.springframeworkretry.SpringFrameworkRetryHooks",
                HookPoint.retryLoop(SpringFrameworkRetryHooks.EXECUTE, RETRY_TEMPLATE, "execute", EXECUTE_DESCRIPTOR));
    }
}
