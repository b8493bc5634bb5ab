package dev.retryagent.engine;

import dev.retryagent.policy.FailureKind;
import java.io.IOException;

/**
 * What the loops ask of a client about an attempt that ended, sync or async alike: the part of {@link Exchange} and
 * {@link AsyncExchange} that turns the client's response or failure into the engine's {@link Outcome}.
 *
 * @param <R> the client's response type
 */
public interface OutcomeReader<R> {
    /** The status and Retry-After of {@code response}. */
    Outcome outcome(R response);

    /** What kind of failure {@code failure} is. */
    FailureKind classify(IOException failure);

    /**
     * Whether {@code failure}, of {@code kind}, came before any byte of the request reached a server, so that the
     * request may be retried whatever its method (docs/reference.md#requests-that-never-left). A connect failure
     * always does; a client adds the failures it knows to come before its request left (an HTTP/2 stream the peer
     * refused, a request its client never executed).
     */
    default boolean unsent(IOException failure, FailureKind kind) {
        return kind == FailureKind.CONNECT;
    }

    /**
     * The time the application gave the whole call through the client's own call-level limit (OkHttp's
     * {@code callTimeout}, {@code java.net.http}'s request timeout), in milliseconds from the call's start; 0 when
     * it set none. It is a deadline of the call: no wait and no retry reaches past it.
     */
    default long callerLimitMillis() {
        return 0;
    }

    /**
     * Whether the client alone, without the agent, would resend the request at once after {@code failure}: the JDK's
     * HttpURLConnection resends a request once when its connection fails before a response. The agent switches that
     * resend off to be the only layer; where the deadline would end the call, it makes that one resend instead, so
     * that nothing the client would have recovered is lost to it.
     */
    default boolean resendsAlone(IOException failure) {
        return false;
    }

    /**
     * Whether {@code failure}, a {@code timeout}, came from the limit the agent gave the attempt (see
     * {@link Exchange#send(int, String, long)}) rather than from the application's own timeouts.
     */
    default boolean cutShort(IOException failure) {
        return false;
    }

    /**
     * The facts {@code response} is decided under: {@code call}'s, unless the client followed a redirect inside the
     * attempt to another address; then {@link CallFacts#redirectedTo} that address, so that the rule and the
     * counters are those of where the request went. Clients that follow redirects outside the agent's attempt (each
     * hop its own call) keep this default.
     */
    default CallFacts decidedUnder(CallFacts call, R response) {
        return call;
    }
}
