package dev.retryagent.agent.httpurlconnection.bootstrap;

import dev.retryagent.engine.RetryLog;
import java.io.FileDescriptor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.Socket;
import java.net.SocketImpl;
import java.util.logging.Level;

/**
 * Whether the server has closed a kept-alive connection while it sat in the JDK's keep-alive cache, answered
 * without waiting.
 *
 * <p>The JDK's own check, {@code sun.net.www.http.HttpClient.available()}, reads the socket with a 1 ms timeout:
 * on a connection that is still open, which is nearly every one, it always waits the whole millisecond. Here the
 * socket's descriptor is polled with a timeout of 0 ({@code sun.nio.ch.Net.poll}, as the JDK's own sockets do
 * before they park): a closed connection has its end of stream (or a reset, or a TLS close alert) waiting to be
 * read, an open idle one has nothing. That is the same answer {@code available()} gives for every close that has
 * reached this host before the request is written, which is all either check can see.
 *
 * <p>Reflection on {@code sun.net} (the client's socket), {@code java.net} (the socket's implementation and its
 * descriptor, behind a delegating implementation where the JDK has one) and {@code sun.nio.ch}, which
 * {@code java.base} opens to the bootstrap loader's unnamed module at start-up. Where one of them cannot be reached
 * (another JDK's layout, a socket layered over another one, a socket factory's own implementation) the JDK's
 * {@code available()} answers instead, at its millisecond.
 */
final class IdleConnectionCheck {
    /** {@code sun.net.NetworkClient.serverSocket}: the connection's socket. */
    private final Field serverSocket;
    /** {@code java.net.Socket.impl}. */
    private final Field socketImpl;
    /** {@code java.net.SocketImpl.fd}. */
    private final Field fd;
    /** {@code java.net.DelegatingSocketImpl.delegate}, where the JDK wraps its platform implementation; or null. */
    private final Field delegate;
    /** {@code sun.nio.ch.Net.poll(FileDescriptor, int, long)}: the events that are ready, 0 for none. */
    private final Method poll;
    /** {@code sun.nio.ch.Net.POLLIN}. */
    private final Integer pollIn;
    /** {@code sun.net.www.http.HttpClient.available()}: the JDK's 1 ms check, where a descriptor cannot be had. */
    private final Method available;

    private IdleConnectionCheck(Class<?> client, Method available) throws ReflectiveOperationException {
        this.available = available;
        serverSocket = accessible(Class.forName("sun.net.NetworkClient", false, null).getDeclaredField("serverSocket"));
        socketImpl = accessible(Socket.class.getDeclaredField("impl"));
        fd = accessible(SocketImpl.class.getDeclaredField("fd"));
        Field wrapped;
        try {
            wrapped = accessible(Class.forName("java.net.DelegatingSocketImpl", false, null).getDeclaredField("delegate"));
        } catch (ClassNotFoundException e) {
            wrapped = null; // Java 8 and 11: the platform implementation is the socket's own
        }
        delegate = wrapped;
        Class<?> net = Class.forName("sun.nio.ch.Net", false, null);
        poll = net.getDeclaredMethod("poll", FileDescriptor.class, int.class, long.class);
        poll.setAccessible(true);
        pollIn = ((Number) accessible(net.getDeclaredField("POLLIN")).get(null)).intValue();
        if (!serverSocket.getDeclaringClass().isAssignableFrom(client)) {
            throw new NoSuchFieldException("serverSocket is not a field of " + client.getName());
        }
    }

    /**
     * The check for {@code client} ({@code sun.net.www.http.HttpClient}); when the descriptor route cannot be made,
     * one that asks {@code available} every time (logged once at {@code info}: nothing is lost but the wait).
     */
    static IdleConnectionCheck of(Class<?> client, Method available) {
        try {
            return new IdleConnectionCheck(client, available);
        } catch (Throwable t) {
            if (t instanceof VirtualMachineError) {
                throw (VirtualMachineError) t;
            }
            RetryLog.agent(Level.INFO, "idle-connection-check client=httpurlconnection via=available error="
                    + t.getClass().getName() + "; a request the policy would not retry waits 1 ms on a kept-alive connection");
            return new IdleConnectionCheck(available);
        }
    }

    private IdleConnectionCheck(Method available) {
        this.available = available;
        serverSocket = null;
        socketImpl = null;
        fd = null;
        delegate = null;
        poll = null;
        pollIn = null;
    }

    /** Whether the server has closed {@code client}'s connection (end of stream, reset or close alert pending). */
    boolean closedByServer(Object client) {
        FileDescriptor descriptor = poll == null ? null : descriptor(client);
        if (descriptor == null) {
            return !(Boolean) ConnectionState.invoke(available, client);
        }
        try {
            return ((Integer) poll.invoke(null, descriptor, pollIn, 0L)) != 0;
        } catch (ReflectiveOperationException e) {
            return true; // a descriptor that cannot be polled is no connection to write a request to
        }
    }

    /** The descriptor of {@code client}'s socket, or null where the socket is not the JDK's own plain one. */
    private FileDescriptor descriptor(Object client) {
        try {
            Object socket = serverSocket.get(client);
            if (socket == null) {
                return null;
            }
            Object impl = socketImpl.get(socket);
            if (delegate != null && delegate.getDeclaringClass().isInstance(impl)) {
                impl = delegate.get(impl);
            }
            FileDescriptor d = impl == null ? null : (FileDescriptor) fd.get(impl);
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
