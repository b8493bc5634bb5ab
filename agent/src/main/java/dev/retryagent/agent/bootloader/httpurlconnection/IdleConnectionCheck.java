package dev.retryagent.agent.bootloader.httpurlconnection;

import dev.retryagent.agent.bootloader.runtime.PeerClosedCheck;
import dev.retryagent.engine.RetryLog;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.Socket;
import java.util.logging.Level;

/**
 * Whether the server has closed a kept-alive connection while it sat in the JDK's keep-alive cache, answered
 * without waiting.
 *
 * <p>The JDK's own check, {@code sun.net.www.http.HttpClient.available()}, reads the socket with a 1 ms timeout:
 * on a connection that is still open, which is nearly every one, it always waits the whole millisecond. Here the
 * socket is polled ({@link PeerClosedCheck}), which gives the same answer for every close that has reached this host
 * before the request is written. The client's socket is read by reflection on {@code sun.net}; where it cannot be
 * reached or polled (another JDK's layout, a TLS socket layered over another one, a socket factory's own
 * implementation) the JDK's {@code available()} answers instead, at its millisecond.
 */
final class IdleConnectionCheck {
    /** {@code sun.net.NetworkClient.serverSocket}: the connection's socket; null where it cannot be read. */
    private final Field serverSocket;
    /** {@code sun.net.www.http.HttpClient.available()}: the JDK's 1 ms check, where a socket cannot be polled. */
    private final Method available;

    private IdleConnectionCheck(Field serverSocket, Method available) {
        this.serverSocket = serverSocket;
        this.available = available;
    }

    /**
     * The check for {@code client} ({@code sun.net.www.http.HttpClient}); when its socket cannot be polled, one that
     * asks {@code available} every time (logged once at {@code info}: nothing is lost but the wait).
     */
    static IdleConnectionCheck of(Class<?> client, Method available) {
        Throwable why = PeerClosedCheck.unavailable();
        if (why == null) {
            try {
                Field socket = Class.forName("sun.net.NetworkClient", false, null).getDeclaredField("serverSocket");
                if (!socket.getDeclaringClass().isAssignableFrom(client)) {
                    throw new NoSuchFieldException("serverSocket is not a field of " + client.getName());
                }
                socket.setAccessible(true);
                return new IdleConnectionCheck(socket, available);
            } catch (Throwable t) {
                if (t instanceof VirtualMachineError) {
                    throw (VirtualMachineError) t;
                }
                why = t;
            }
        }
        RetryLog.agent(Level.INFO, "idle-connection-check client=httpurlconnection via=available error="
                + why.getClass().getName() + "; a request the policy would not retry waits 1 ms on a kept-alive connection");
        return new IdleConnectionCheck(null, available);
    }

    /** Whether the server has closed {@code client}'s connection (end of stream, reset or close alert pending). */
    boolean closedByServer(Object client) {
        Boolean closed = serverSocket == null ? null : PeerClosedCheck.closedByPeer(socket(client));
        if (closed == null) {
            return !(Boolean) UncheckedReflection.invoke(available, client);
        }
        return closed;
    }

    private Socket socket(Object client) {
        try {
            return (Socket) serverSocket.get(client);
        } catch (IllegalAccessException e) {
            return null;
        }
    }
}
