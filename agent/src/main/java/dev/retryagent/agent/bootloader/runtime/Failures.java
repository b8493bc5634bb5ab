package dev.retryagent.agent.bootloader.runtime;

import dev.retryagent.policy.FailureKind;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Locale;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * How a failed attempt failed (docs/reference.md#classification), as far as the JDK's own exception types tell: the
 * part of failure classification every client shares. Each client's adapter asks here first and adds only its own
 * exception types and messages. Only JDK types: it lives on the bootstrap path, next to policy-core.
 */
public final class Failures {
    private Failures() {
    }

    /**
     * Whether {@code failure} is the timeout of an attempt whose read (or response) timeout the agent had shortened to
     * the limit the policy gave it ({@code shortened}): a socket timeout then comes from that limit, not from the
     * application's own timeouts. Every client that bounds its attempts reports its read timeout so.
     */
    public static boolean cutShort(IOException failure, boolean shortened) {
        return shortened && failure instanceof SocketTimeoutException;
    }

    /**
     * The kind of failure {@code failure} is by its JDK type, or null when it is none of the JDK types this knows
     * (the caller then looks at its own client's exception types and messages).
     */
    public static FailureKind byJdkType(IOException failure) {
        if (failure instanceof ConnectException || failure instanceof NoRouteToHostException) {
            return FailureKind.CONNECT; // refused, unreachable
        }
        if (failure instanceof SocketTimeoutException) {
            String message = failure.getMessage();
            // Not any message naming a connection: HttpAsyncClient 4's read timeout says "500 milliseconds timeout on
            // connection http-outgoing-3 [ACTIVE]".
            return message != null && message.toLowerCase(Locale.ROOT).contains("connect timed out")
                    ? FailureKind.CONNECT   // "Connect timed out" (the JDK's socket, under every client)
                    : FailureKind.TIMEOUT;  // "Read timed out", "timeout" (okio), the Apache clients' socket timeouts
        }
        if (failure instanceof UnknownHostException || failure instanceof SSLHandshakeException) {
            return FailureKind.OTHER;
        }
        if (failure instanceof SSLException) {
            // A TLS record cut short by a reset is a reset; any other TLS error will not change on a retry.
            Throwable cause = failure.getCause();
            return cause instanceof SocketException || cause instanceof EOFException ? FailureKind.RESET : FailureKind.OTHER;
        }
        if (failure instanceof SocketException || failure instanceof EOFException) {
            return FailureKind.RESET; // reset, broken pipe, aborted, closed before the response was complete
        }
        if (failure instanceof InterruptedIOException) {
            return FailureKind.OTHER; // a call timeout, a request aborted, a pool lease timeout, interrupted
        }
        return null;
    }

    /**
     * {@code kind}, or {@link FailureKind#RESET} for a failure on a stale connection: a protocol error (bytes that are
     * not a response, a status line that cannot be read) on a keep-alive connection that had carried an earlier
     * exchange, before this attempt's response head was read. The peer is out of step with the client, or closed
     * the connection in the middle of writing, not answering this request: a new connection makes the same request
     * anew, as it does after a plain reset. On a fresh connection the same error is the server's own answer, which
     * a retry would only get again: it stays what the client's adapter said.
     *
     * @param protocolError the failure is one of the client's protocol errors (its adapter knows which)
     * @param reusedBeforeHead the attempt's connection had carried an earlier exchange and this attempt's response
     *                         head had not been read when it failed; false when the adapter cannot tell
     */
    public static FailureKind staleConnection(FailureKind kind, boolean protocolError, boolean reusedBeforeHead) {
        return kind == FailureKind.OTHER && protocolError && reusedBeforeHead ? FailureKind.RESET : kind;
    }
}
