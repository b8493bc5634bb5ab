package dev.retryagent.agent.bootloader.weaving;

import java.lang.reflect.Field;
import java.security.AccessController;
import java.security.PrivilegedAction;

/**
 * What an adapter or a retry layer's handler looks up by reflection in a class of its client or library (a private
 * field or method, made accessible), computed once per class ({@link ClassValue}) and read with {@link #of}.
 *
 * <p>The lookup is the agent's own work, but it happens on the application's thread, under the application's frames:
 * under a security manager those would hold it to the application's grant, which need not allow reflection. So
 * {@link #of} computes it privileged. What the privileged block runs is {@link #computeValue} of the subclass and
 * nothing else, checked against the grant of that subclass's code (the agent jar's, for the agent's lookups, which
 * look members up and call none of the application's code); code that subclasses this gains nothing over its own
 * grant.
 */
public abstract class PerClassLookup<T> extends ClassValue<T> {
    /**
     * {@code type}'s own field {@code name}, made accessible, or null when it declares none: for a {@link #computeValue},
     * in a class of an unnamed module (a module's internals are opened to the agent's own module, whose classes make
     * those accessible themselves). Not privileged itself: called from anywhere else, it is held to its caller's grant.
     */
    public static Field accessibleField(Class<?> type, String name) {
        try {
            Field f = type.getDeclaredField(name);
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException e) {
            return null;
        }
    }

    /** {@link #get}, computed privileged the first time for {@code type}. */
    public final T of(final Class<?> type) {
        return AccessController.doPrivileged(new PrivilegedAction<T>() {
            @Override
            public T run() {
                return get(type);
            }
        });
    }
}
