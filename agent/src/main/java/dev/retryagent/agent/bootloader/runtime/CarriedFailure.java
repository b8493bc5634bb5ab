package dev.retryagent.agent.bootloader.runtime;

import java.io.IOException;

/**
 * A failure of an attempt that is not an {@link IOException}, {@code Error}s included, carried through the loop and
 * then unwrapped for the application. Its client's adapter classifies it by its cause: java.net.http's never retries
 * one; Reactor Netty's read timeout, a Netty exception that is no {@code IOException}, is a timeout.
 */
public final class CarriedFailure extends IOException {
    private static final long serialVersionUID = 1L;

    public CarriedFailure(Throwable cause) {
        super(cause);
    }
}
