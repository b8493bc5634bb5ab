package dev.retryagent.agent.bootloader.httpurlconnection;

import java.lang.reflect.Method;

/**
 * The methods of the JDK's {@code sun.net.www.MessageHeader}, the type of a connection's request and response
 * headers, made accessible once per JVM (see {@link HttpUrlConnectionFields}: required, a missing one disables the
 * retries).
 */
final class MessageHeaders {
    private final Method reset;
    private final Method set;
    private final Method getKey;
    private final Method getValue;
    private final Method remove;
    private final Method findValue;

    MessageHeaders(Class<?> messageHeader) throws NoSuchMethodException {
        reset = accessible(messageHeader.getMethod("reset"));
        set = accessible(messageHeader.getMethod("set", String.class, String.class));
        getKey = accessible(messageHeader.getMethod("getKey", int.class));
        getValue = accessible(messageHeader.getMethod("getValue", int.class));
        remove = accessible(messageHeader.getMethod("remove", String.class));
        findValue = accessible(messageHeader.getMethod("findValue", String.class));
    }

    private static Method accessible(Method m) {
        m.setAccessible(true);
        return m;
    }

    /** {@code reset()}: no header left. */
    void reset(Object headers) {
        UncheckedReflection.invoke(reset, headers);
    }

    /** {@code set(name, value)}: replaces the header's value, or adds it. */
    void set(Object headers, String name, String value) {
        UncheckedReflection.invoke(set, headers, name, value);
    }

    /** {@code getKey(i)}: the name of line {@code i}, null for a status line or past the end. */
    Object key(Object headers, int i) {
        return UncheckedReflection.invoke(getKey, headers, i);
    }

    /** {@code getValue(i)}: the value of line {@code i}, or null past the end. */
    Object value(Object headers, int i) {
        return UncheckedReflection.invoke(getValue, headers, i);
    }

    /** {@code remove(name)}: every line of that name. */
    void remove(Object headers, Object name) {
        UncheckedReflection.invoke(remove, headers, name);
    }

    /** {@code findValue(name)}: the last value of that name, or null. */
    Object find(Object headers, String name) {
        return UncheckedReflection.invoke(findValue, headers, name);
    }
}
