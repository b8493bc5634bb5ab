package dev.retryagent.agent.bootloader.httpurlconnection;

import dev.retryagent.engine.RetryLog;
import java.security.AccessController;
import java.security.PrivilegedExceptionAction;

/**
 * Accessors to the JDK's {@code sun.net.www.protocol.http.HttpURLConnection}, made once per JVM at their first use.
 * When they cannot be made, {@link #get} answers null from then on, logged once under the name given: the part of
 * the agent that needs them leaves HttpURLConnection to itself. Made privileged: the first use runs on the
 * application's thread, under its frames, which a security manager would hold to the application's grant for the
 * agent's own reflection.
 */
abstract class MadeOnce<T> {
    private final String where;
    private final Object lock = new Object();
    private volatile T made;
    private volatile boolean unavailable;

    /** @param where the name an internal error is logged under when the accessors cannot be made */
    MadeOnce(String where) {
        this.where = where;
    }

    /** The accessors, read from {@code impl}, the JDK's {@code HttpURLConnection} implementation. */
    abstract T make(Class<?> impl) throws ReflectiveOperationException;

    /** The accessors; null when they cannot be made. */
    final T get() {
        T t = made;
        if (t != null || unavailable) {
            return t;
        }
        synchronized (lock) {
            if (made == null && !unavailable) {
                try {
                    made = AccessController.doPrivileged(new PrivilegedExceptionAction<T>() {
                        @Override
                        public T run() throws ReflectiveOperationException {
                            return make(Class.forName(HttpUrlConnectionFields.IMPL, false, null));
                        }
                    });
                } catch (Throwable e) {
                    if (e instanceof VirtualMachineError) {
                        throw (VirtualMachineError) e;
                    }
                    unavailable = true;
                    RetryLog.internalError(where, e);
                }
            }
            return made;
        }
    }
}
