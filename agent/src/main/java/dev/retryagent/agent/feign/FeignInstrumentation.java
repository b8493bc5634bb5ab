package dev.retryagent.agent.feign;

import dev.retryagent.agent.instrument.ClientInstrumentation;
import dev.retryagent.agent.instrument.HookPoint;

/**
 * Feign's synchronous retry loop, a retry layer above the client (SPEC 4.14): {@code feign.SynchronousMethodHandler}
 * {@code invoke(Object[])}, the same name and descriptor in 11.x, 12.x and 13.x (checked on 11.10, 12.5, 13.1,
 * 13.5, 13.12 and 13.13). Up to 13.12 its body is the {@code while (true)} loop itself; in 13.13 the loop moved into
 * the private {@code runWithRetry(Invocation, Options)}, which {@code invoke} calls through the method interceptor
 * chain on the same thread: {@code invoke} still encloses every attempt, once per call. See the package
 * documentation. Names no Feign type.
 */
public final class FeignInstrumentation extends ClientInstrumentation {
    static final String METHOD_HANDLER = "feign.SynchronousMethodHandler";
    static final String INVOKE_DESCRIPTOR = "([Ljava/lang/Object;)Ljava/lang/Object;";

    public FeignInstrumentation() {
        super(FeignHooks.LAYER, "dev.retryagent.agent.feign.FeignHooks",
                HookPoint.retryLoop(FeignHooks.INVOKE, METHOD_HANDLER, "invoke", INVOKE_DESCRIPTOR));
    }
}
