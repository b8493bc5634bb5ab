package dev.retryagent.engine;

import dev.retryagent.policy.FailureKind;
import java.io.IOException;

/**
 * What the loops ask of a client about an attempt that ended, sync or async alike: the part of {@link Exchange} and
 * {@link AsyncExchange} that turns the client's response or failure into the engine's {@link Outcome}.
 *
 * @param <R> the client's response type
 */
public interface Outcomes<R> {
    /** The status and Retry-After of {@code response}. */
    Outcome outcome(R response);

    /** What kind of failure {@code failure} is. */
    FailureKind classify(IOException failure);
}
