package dev.retryagent.agent.clients.jdkhttp;

import java.io.IOException;

/**
 * A failure of an attempt that is not an {@link IOException}, {@code Error}s included, carried through the loop (never
 * retried) and then unwrapped.
 */
final class CarriedFailure extends IOException {
    private static final long serialVersionUID = 1L;

    CarriedFailure(Throwable cause) {
        super(cause);
    }
}
