package dev.retryagent.agent.bootloader.runtime;

import java.io.Closeable;
import java.io.IOException;

/**
 * Closing what the agent releases on a caller's behalf (a discarded response, a stream the caller never reads), where a
 * failure to close leaves nothing more to release. Only JDK types: it lives on the bootstrap path, where the adapters
 * of every class loader find it.
 */
public final class Closeables {
    private Closeables() {
    }

    /** Closes {@code resource}; an {@link IOException} of its {@code close()} is dropped. */
    public static void closeQuietly(Closeable resource) {
        try {
            resource.close();
        } catch (IOException e) {
            // nothing more to release
        }
    }
}
