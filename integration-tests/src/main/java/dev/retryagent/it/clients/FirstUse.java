package dev.retryagent.it.clients;

import java.io.Closeable;
import java.io.IOException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** A client made and started at its first use: an application that never calls it never starts it. */
final class FirstUse<C extends Closeable> implements Closeable {
    private final Supplier<C> make;
    private final Consumer<C> start;
    private C client;

    FirstUse(Supplier<C> make, Consumer<C> start) {
        this.make = make;
        this.start = start;
    }

    synchronized C get() {
        if (client == null) {
            client = make.get();
            start.accept(client);
        }
        return client;
    }

    @Override
    public synchronized void close() throws IOException {
        if (client != null) {
            client.close();
        }
    }
}
