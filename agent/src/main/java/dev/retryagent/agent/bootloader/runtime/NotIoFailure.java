package dev.retryagent.agent.bootloader.runtime;

import java.io.IOException;

/**
 * A failure of an attempt that is not an {@link IOException} (a client's protocol exception, a RuntimeException
 * of the JDK or the application's own code), carried through the retry loop, which only passes IOExceptions.
 * Never retried (adapters classify it as {@code other}); unwrapped before the application sees it, so the
 * application gets the exception its client produced.
 */
public final class NotIoFailure extends IOException {
    private static final long serialVersionUID = 1L;

    public NotIoFailure(Exception cause) {
        super(cause);
    }

    /** The exception the client or the application produced. */
    public Exception original() {
        return (Exception) getCause();
    }

    /** {@code failure} as the client produced it: the original of a carried failure, else itself. */
    public static Exception unwrap(IOException failure) {
        return failure instanceof NotIoFailure ? ((NotIoFailure) failure).original() : failure;
    }
}
