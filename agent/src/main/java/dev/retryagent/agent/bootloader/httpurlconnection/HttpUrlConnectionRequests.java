package dev.retryagent.agent.bootloader.httpurlconnection;

import dev.retryagent.agent.bootloader.runtime.Failures;
import dev.retryagent.agent.bootloader.runtime.InjectedFaults;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.HeaderLookup;
import dev.retryagent.engine.RetryEngine;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.SocketException;
import java.net.URL;
import java.util.Locale;

/** HttpURLConnection requests and failures in the engine's terms. Only JDK types: it lives on the bootstrap path. */
final class HttpUrlConnectionRequests {
    private HttpUrlConnectionRequests() {
    }

    /** {@code call}'s facts at {@code url}, where the JDK's redirects took the connection (null: where it was). */
    static CallFacts decidedUnder(CallFacts call, URL url) {
        if (url == null) {
            return call;
        }
        return call.redirectedTo(url.getProtocol().toLowerCase(Locale.ROOT), url.getHost(),
                url.getPort() >= 0 ? url.getPort() : url.getDefaultPort(), url.getPath());
    }

    /**
     * What the engine needs to know about the request {@code conn} is about to send, read under {@code engine}'s
     * policy.
     *
     * @param streaming the connection is in fixed-length or chunked streaming mode (its body cannot be re-sent)
     * @param state     the connection's private state, to tell a marker the application set from one the agent
     *                  set; null to go by the request headers alone
     */
    static CallFacts facts(final HttpURLConnection conn, boolean streaming, RetryEngine engine,
                           final HttpUrlConnectionFields state) {
        InjectedFaults.at(ClientNames.HTTP_URL_CONNECTION + ".facts");
        URL url = conn.getURL();
        String method = conn.getRequestMethod();
        if ("GET".equalsIgnoreCase(method) && conn.getDoOutput() && streaming) {
            method = "POST"; // what getOutputStream() makes of it (the JDK's "backward compatibility")
        }
        return CallFacts.builder(ClientNames.HTTP_URL_CONNECTION, method, url.getProtocol().toLowerCase(Locale.ROOT),
                        url.getHost(), url.getPort() >= 0 ? url.getPort() : url.getDefaultPort(),
                        url.getPath()) // never the query
                .bodyReplayable(!streaming)
                .build(engine, new HeaderLookup() {
                    @Override
                    public boolean has(String name) {
                        return conn.getRequestProperty(name) != null; // the JDK compares names case-insensitively
                    }

                    @Override
                    public String value(String name) {
                        return conn.getRequestProperty(name);
                    }

                    /** A marker the agent set on the connection for its streaming head is not the application's. */
                    @Override
                    public boolean hasMarker(String name) {
                        // The JDK keeps every header the application sets in the request headers too: a header
                        // absent there was not set by the application (the common case, answered without reflection).
                        if (!has(name)) {
                            return false;
                        }
                        Boolean userSet = state == null ? null : state.userSetHeader(conn, name);
                        return userSet == null || userSet;
                    }
                });
    }

    /**
     * How an attempt that failed with {@code failure}, and no response, failed (docs/reference.md#classification),
     * {@code cachedConnection} whether its request went to a connection from the keep-alive cache: there, a response
     * the JDK cannot read at all is a stale connection ({@link Failures#staleConnection}).
     */
    static FailureKind classify(IOException failure, boolean cachedConnection) {
        return Failures.staleConnection(classify(failure), isUnreadableResponse(failure), cachedConnection);
    }

    /**
     * The JDK's failure for an answer without a status line it can read (bytes that are not HTTP, a status line
     * without a code): the response code is -1, so nothing of a response head was read.
     */
    static boolean isUnreadableResponse(IOException failure) {
        return failure.getClass() == IOException.class && "Invalid Http response".equals(failure.getMessage());
    }

    /** How an attempt that failed with {@code failure}, and no response, failed, by the exception alone. */
    static FailureKind classify(IOException failure) {
        FailureKind byType = Failures.byJdkType(failure);
        if (byType == FailureKind.RESET && failure instanceof SocketException && isClosedHere(failure.getMessage())) {
            return FailureKind.OTHER; // the application closed it (disconnect() from another thread): not a reset
        }
        if (byType != null) {
            // RESET: "Connection reset", "Broken pipe", "Unexpected end of file from server" (closed before a response)
            return byType;
        }
        if ("Error writing to server".equals(failure.getMessage())) {
            return FailureKind.RESET; // the JDK's own rewrite on a new connection failed too
        }
        return FailureKind.OTHER; // protocol errors, "Invalid Http response", HttpRetryException, ...
    }

    /** The JDK's messages for a socket closed on this side ("Socket closed", "Socket is closed"). */
    private static boolean isClosedHere(String message) {
        return "Socket closed".equals(message) || "Socket is closed".equals(message);
    }
}
