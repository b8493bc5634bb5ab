package dev.retryagent.agent.bootloader.runtime;

import java.io.FileDescriptor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.Socket;
import java.net.SocketImpl;
import java.security.AccessController;
import java.security.PrivilegedAction;

/**
 * Whether the peer has closed a connection that sits between two exchanges, answered without waiting, for the
 * clients that would otherwise write a request to it and then resend it on their own.
 *
 * <p>The socket's descriptor is polled with a timeout of 0 ({@code sun.nio.ch.Net.poll}, as the JDK's own sockets
 * do before they park): a closed connection has its end of stream (or a reset, or a TLS close alert) waiting to be
 * read, an open idle one has nothing. That is every close that has reached this host before the request is written,
 * which is all a check made then can see; a read with a short timeout would see the same, after a wait on every
 * connection that is still open, which is nearly every one.
 *
 * <p>Reflection on {@code java.net} (the socket's implementation and its descriptor, behind a delegating
 * implementation where the JDK has one) and {@code sun.nio.ch}, which {@code java.base} opens to the bootstrap
 * loader's unnamed module at start-up; hence in the boot loader. Where they cannot be reached (another JDK's layout)
 * or the socket is not the JDK's own plain one (a TLS socket layered over another, a socket factory's own), the
 * answer is "not known".
 */
public final class PeerClosedCheck {
    /** {@code java.net.Socket.impl}. */
    private static final Field SOCKET_IMPL;
    /** {@code java.net.SocketImpl.fd}. */
    private static final Field FD;
    /** {@code java.net.DelegatingSocketImpl.delegate}, where the JDK wraps its platform implementation; or null. */
    private static final Field DELEGATE;
    /** {@code sun.nio.ch.Net.poll(FileDescriptor, int, long)}: the events that are ready, 0 for none. */
    private static final Method POLL;
    /** {@code sun.nio.ch.Net.POLLIN}. */
    private static final Integer POLL_IN;
    /** Why the check cannot be made on this JDK; null when it can. */
    private static final Throwable UNAVAILABLE;

    static {
        // Privileged: the first check runs on a client's thread, under the application's frames, which a security
        // manager would hold to the application's grant for the agent's own reflection.
        Object[] found = AccessController.doPrivileged(new PrivilegedAction<Object[]>() {
            @Override
            public Object[] run() {
                return lookUp();
            }
        });
        SOCKET_IMPL = (Field) found[0];
        FD = (Field) found[1];
        DELEGATE = (Field) found[2];
        POLL = (Method) found[3];
        POLL_IN = (Integer) found[4];
        UNAVAILABLE = (Throwable) found[5];
    }

    /** {@code [impl, fd, delegate, poll, POLLIN, null]}, or {@code [.., null poll, .., why]} where they cannot be had. */
    private static Object[] lookUp() {
        Object[] found = new Object[6];
        try {
            found[0] = accessible(Socket.class.getDeclaredField("impl"));
            found[1] = accessible(SocketImpl.class.getDeclaredField("fd"));
            try {
                found[2] = accessible(Class.forName("java.net.DelegatingSocketImpl", false, null)
                        .getDeclaredField("delegate"));
            } catch (ClassNotFoundException e) {
                found[2] = null; // Java 8 and 11: the platform implementation is the socket's own
            }
            Class<?> net = Class.forName("sun.nio.ch.Net", false, null);
            Method poll = net.getDeclaredMethod("poll", FileDescriptor.class, int.class, long.class);
            poll.setAccessible(true);
            found[4] = ((Number) accessible(net.getDeclaredField("POLLIN")).get(null)).intValue();
            found[3] = poll;
        } catch (Throwable t) {
            if (t instanceof VirtualMachineError) {
                throw (VirtualMachineError) t;
            }
            found[3] = null;
            found[5] = t;
        }
        return found;
    }

    private PeerClosedCheck() {
    }

    /** Why no socket can be checked on this JDK, for a log line; null when they can. */
    public static Throwable unavailable() {
        return UNAVAILABLE;
    }

    /**
     * True when the peer has closed {@code socket}'s connection (end of stream, reset or close alert pending), false
     * when nothing is waiting to be read, null when it cannot be told.
     */
    public static Boolean closedByPeer(Socket socket) {
        FileDescriptor descriptor = POLL == null || socket == null ? null : descriptor(socket);
        if (descriptor == null) {
            return null;
        }
        try {
            return ((Integer) POLL.invoke(null, descriptor, POLL_IN, 0L)) != 0;
        } catch (ReflectiveOperationException e) {
            return Boolean.TRUE; // a descriptor that cannot be polled is no connection to write a request to
        }
    }

    /** The descriptor of {@code socket}, or null where the socket is not the JDK's own plain one. */
    private static FileDescriptor descriptor(Socket socket) {
        try {
            Object impl = SOCKET_IMPL.get(socket);
            if (DELEGATE != null && DELEGATE.getDeclaringClass().isInstance(impl)) {
                impl = DELEGATE.get(impl);
            }
            FileDescriptor d = impl == null ? null : (FileDescriptor) FD.get(impl);
            return d != null && d.valid() ? d : null;
        } catch (IllegalAccessException e) {
            return null;
        }
    }

    private static Field accessible(Field f) {
        f.setAccessible(true);
        return f;
    }
}
