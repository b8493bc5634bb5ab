package dev.retryagent.agent.bootloader.httpurlconnection;

import dev.retryagent.agent.bootloader.runtime.Failures;
import dev.retryagent.agent.bootloader.runtime.InjectedFaults;
import dev.retryagent.agent.bootloader.runtime.NotIoFailure;
import dev.retryagent.agent.bootloader.runtime.OpenTelemetryTracer;
import dev.retryagent.engine.CallFacts;
import dev.retryagent.engine.Exchange;
import dev.retryagent.engine.Outcome;
import dev.retryagent.engine.RetryLog;
import dev.retryagent.policy.ClientNames;
import dev.retryagent.policy.FailureKind;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.security.AccessController;
import java.security.PrivilegedAction;

/**
 * One HttpURLConnection call as the retry loop sees it. There is one connection object for the whole call (the
 * application's): every attempt is the JDK's own {@code getInputStream()} on it, reached through the hook's
 * re-entrancy guard, so the JDK builds, sends and reads each attempt exactly as it does alone. Before an attempt
 * other than the first, {@link HttpUrlConnectionFields#resetForRetry} puts the connection back where it stood before
 * its first read; the marker header goes into its request headers.
 *
 * <p>A response with a status of 400 or more makes the JDK's {@code getInputStream()} throw (the status, headers
 * and error body stay readable): for the loop that attempt is a response ({@link AttemptResponse} with the
 * exception), not a failure; the application gets that very exception if it is the last attempt.
 */
final class HttpUrlConnectionSyncExchange implements Exchange<HttpUrlConnectionSyncExchange.AttemptResponse> {
    private final HttpURLConnection conn;
    private final HttpUrlConnectionFields state;
    private final String markerHeader;
    /** The agent is the only retry layer of this call: the JDK's hidden resend is off ({@link HiddenResend}). */
    private final boolean soleLayer;
    /** With {@link #soleLayer}: the policy would not retry this request after a reset. */
    private final boolean checkStale;
    /** The connection's URL when the call began; the JDK replaces it with another when it follows a redirect. */
    private final URL urlAtStart;
    /** The failure the last attempt threw, to tell it from the loop's own (interrupted while waiting). */
    private IOException lastFailure;
    /** The last attempt failed on a connection from the keep-alive cache (known with {@link #soleLayer} only). */
    private boolean lastOnCachedConnection;
    /** The last attempt's read timeout was the limit the policy gave it, below the application's own. */
    private boolean lastReadBounded;

    HttpUrlConnectionSyncExchange(HttpURLConnection conn, HttpUrlConnectionFields state, String markerHeader,
                                  boolean soleLayer, boolean checkStale) {
        this.conn = conn;
        this.state = state;
        this.markerHeader = markerHeader;
        this.soleLayer = soleLayer;
        this.checkStale = checkStale;
        this.urlAtStart = conn.getURL();
    }

    /** How one attempt ended with a status line: the stream the JDK returned, or the exception it threw. */
    static final class AttemptResponse {
        final InputStream stream;
        final IOException error;
        final int status;
        final String retryAfter;

        AttemptResponse(InputStream stream, IOException error, int status, String retryAfter) {
            this.stream = stream;
            this.error = error;
            this.status = status;
            this.retryAfter = retryAfter;
        }
    }

    /**
     * Attempt {@code attempt} with the connection's connect and read timeouts at most {@code limitMillis}, the
     * application's own put back afterwards ({@link AttemptTimeouts}): the body it reads next is read with its own.
     */
    @Override
    public AttemptResponse send(int attempt, String marker, long limitMillis) throws IOException {
        AttemptTimeouts timeouts = limitMillis > 0 ? AttemptTimeouts.get() : null;
        if (timeouts == null) {
            return send(attempt, marker);
        }
        AttemptTimeouts.Saved saved;
        try {
            saved = timeouts.bound(conn, limitMillis);
        } catch (IllegalAccessException | RuntimeException e) {
            RetryLog.internalError(ClientNames.HTTP_URL_CONNECTION + ".attempt-timeout", e); // the JDK's own alone
            return send(attempt, marker);
        }
        try {
            AttemptResponse response = send(attempt, marker);
            lastReadBounded = false;
            return response;
        } catch (IOException e) {
            lastReadBounded = saved.readBounded;
            throw e;
        } finally {
            try {
                timeouts.restore(conn, saved);
            } catch (IllegalAccessException e) {
                RetryLog.internalError(ClientNames.HTTP_URL_CONNECTION + ".restore-timeouts", e);
            }
        }
    }

    @Override
    public AttemptResponse send(int attempt, String marker) throws IOException {
        lastReadBounded = false;
        lastFailure = null;
        lastOnCachedConnection = false;
        if (attempt > 1) {
            state.resetForRetry(conn);
            OpenTelemetryTracer.retryingConnection(conn);
        }
        if (markerHeader != null && marker != null && (attempt > 1 || !state.requestHeadBuilt(conn))) {
            // Not when the first head has gone out already (streaming mode writes it in getOutputStream()).
            state.setRequestHeader(conn, markerHeader, marker);
        }
        InputStream in;
        Object outer = soleLayer ? HiddenResend.enter(conn, checkStale) : null;
        try {
            in = conn.getInputStream(); // the hook lets this nested call through: the JDK's own attempt
        } catch (IOException e) {
            AttemptResponse response = responseLeft(null, e);
            if (response.status > 0) {
                return response;
            }
            lastFailure = e;
            lastOnCachedConnection = soleLayer && HiddenResend.onCachedConnection(conn);
            throw e;
        } catch (RuntimeException e) {
            throw new NotIoFailure(e);
        } finally {
            if (soleLayer) {
                HiddenResend.exit(outer);
            }
        }
        return responseLeft(in, null);
    }

    /**
     * The status and Retry-After of the attempt just made, read from what the JDK parsed; never through the public
     * getters, which may send the request again ({@link HttpUrlConnectionFields#status}). Status -1: no status line, or the
     * state could not be read.
     */
    private AttemptResponse responseLeft(InputStream in, IOException error) {
        try {
            int status = state.status(conn);
            return new AttemptResponse(in, error, status, status > 0 ? state.responseHeader(conn, "Retry-After") : null);
        } catch (RuntimeException e) {
            RetryLog.internalError(ClientNames.HTTP_URL_CONNECTION + ".response", e);
            return new AttemptResponse(in, error, -1, null);
        }
    }

    @Override
    public Outcome outcome(AttemptResponse response) {
        InjectedFaults.at(ClientNames.HTTP_URL_CONNECTION + ".outcome");
        return Outcome.status(response.status, response.retryAfter);
    }

    /**
     * The JDK follows redirects inside {@code getInputStream()} and leaves the connection's URL at the last hop (the
     * next attempt goes there too): the response is decided under that address's rule (see
     * {@link CallFacts#redirectedTo}).
     */
    @Override
    public CallFacts decidedUnder(CallFacts call, AttemptResponse response) {
        URL url = conn.getURL();
        // Still the URL the facts were read from: the same address, the same facts.
        return url == urlAtStart ? call : HttpUrlConnectionRequests.decidedUnder(call, url);
    }

    @Override
    public FailureKind classify(IOException failure) {
        InjectedFaults.at(ClientNames.HTTP_URL_CONNECTION + ".classify");
        if (failure instanceof NotIoFailure) {
            return FailureKind.OTHER;
        }
        return HttpUrlConnectionRequests.classify(failure, failure == lastFailure && lastOnCachedConnection);
    }

    /**
     * The JDK alone resends a request once when its connection fails before a response
     * ({@code sun.net.www.http.HttpClient.parseHTTP}), unless it streams its body, or is a POST under
     * {@code -Dsun.net.http.retryPost=false}; the agent switched that resend off for this attempt ({@link #soleLayer}).
     */
    @Override
    public boolean resendsAlone(IOException failure) {
        if (!soleLayer || failure != lastFailure || state.isStreaming(conn)) {
            return false;
        }
        String method = conn.getRequestMethod();
        return !"CONNECT".equals(method)
                && (!"POST".equals(method) || JdkRetryPost.ENABLED);
    }

    /** {@code sun.net.http.retryPost}, read as the JDK reads it: privileged, as the application's grant may not cover it. */
    private static final class JdkRetryPost {
        static final boolean ENABLED = AccessController.doPrivileged(new PrivilegedAction<Boolean>() {
            @Override
            public Boolean run() {
                return Boolean.parseBoolean(System.getProperty("sun.net.http.retryPost", "true"));
            }
        });
    }

    /** A read timeout of the last attempt, whose read timeout was the agent's limit: the policy cut it short. */
    @Override
    public boolean cutShort(IOException failure) {
        return failure == lastFailure && Failures.cutShort(failure, lastReadBounded);
    }

    @Override
    public void discard(AttemptResponse response) {
        state.release(conn);
        InjectedFaults.at(ClientNames.HTTP_URL_CONNECTION + ".discard");
    }

    /** The failure the last attempt threw, or null if it ended with a status line. */
    IOException lastFailure() {
        return lastFailure;
    }
}
