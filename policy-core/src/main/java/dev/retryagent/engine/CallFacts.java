package dev.retryagent.engine;

import dev.retryagent.policy.Mode;
import dev.retryagent.policy.Policy;
import dev.retryagent.policy.UpperLayers;
import java.util.List;
import java.util.Locale;

/**
 * What the engine needs to know about one call, in client-neutral terms: its request as the client was asked to send
 * it, and where it is made (inside an attempt of another call, inside a retry layer above the client). An adapter
 * builds one per call from its client's request with {@link #builder}, giving the request's address and a
 * {@link HeaderLookup}; the engine reads the headers that the call's rule names. {@code path} carries no query string.
 * Facts only, immutable: what the engine works out from them is the call's {@link CallPlan}, and what a run of the
 * call learns (the redirects its attempts were taken through) stays with the run.
 */
public final class CallFacts {
    private final String client;
    private final String method;
    private final String scheme;
    private final String host;
    private final int port;
    private final String path;
    private final boolean idempotencyKeyPresent;
    private final boolean bodyReplayable;
    private final boolean markerPresent;
    /** The attempt of the agent-run call this call is made inside, on the same thread; 0 when none. */
    private final int enclosingAttempt;
    /**
     * The retry layer above the client this call is made inside and what it retries
     * (docs/reference.md#layers-above-the-client), or null when none.
     */
    private final LayerRetries upperLayer;
    /** The policy these facts were read under (its key headers, its marker), or null: the engine's current one. */
    final Policy readUnder;

    /**
     * @param client                the client's name, one of {@code ClientNames}
     * @param method                upper-case HTTP method
     * @param idempotencyKeyPresent the request carries one of the policy's idempotency-key headers
     * @param bodyReplayable        the request has no body, or one that can be sent again byte for byte
     * @param markerPresent         the request already carried the marker header when the agent first saw it
     */
    public CallFacts(String client, String method, String scheme, String host, int port, String path,
                     boolean idempotencyKeyPresent, boolean bodyReplayable, boolean markerPresent) {
        this.client = client;
        this.method = method;
        this.scheme = scheme;
        this.host = host;
        this.port = port;
        this.path = path == null || path.isEmpty() ? "/" : path;
        this.idempotencyKeyPresent = idempotencyKeyPresent;
        this.bodyReplayable = bodyReplayable;
        this.markerPresent = markerPresent;
        this.enclosingAttempt = 0;
        this.upperLayer = null;
        this.readUnder = null;
    }

    private CallFacts(String client, String method, String scheme, String host, int port, String path,
                      boolean idempotencyKeyPresent, boolean bodyReplayable, boolean markerPresent,
                      int enclosingAttempt, LayerRetries upperLayer, Policy readUnder) {
        this.client = client;
        this.method = method;
        this.scheme = scheme;
        this.host = host;
        this.port = port;
        this.path = path;
        this.idempotencyKeyPresent = idempotencyKeyPresent;
        this.bodyReplayable = bodyReplayable;
        this.markerPresent = markerPresent;
        this.enclosingAttempt = enclosingAttempt;
        this.upperLayer = upperLayer;
        this.readUnder = readUnder;
    }

    /**
     * The facts of a call to {@code scheme://host:port/path} made by {@code client} (one of {@code ClientNames}),
     * to be completed by {@link Builder#build}.
     *
     * @param method HTTP method, any case
     * @param path   the request path without query or fragment; null or empty means {@code /}
     */
    public static Builder builder(String client, String method, String scheme, String host, int port, String path) {
        return new Builder(client, method, scheme, host, port, path);
    }

    /** A call's address and body, waiting for its headers to be read under the engine's policy. */
    public static final class Builder {
        final String client;
        final String method;
        final String scheme;
        final String host;
        final int port;
        final String path;
        private boolean bodyReplayable = true;

        private Builder(String client, String method, String scheme, String host, int port, String path) {
            this.client = client;
            this.method = method.toUpperCase(Locale.ROOT);
            this.scheme = scheme;
            this.host = host;
            this.port = port;
            this.path = path == null || path.isEmpty() ? "/" : path;
        }

        /** The request has no body, or one that can be sent again byte for byte (the default: no body). */
        public Builder bodyReplayable(boolean replayable) {
            this.bodyReplayable = replayable;
            return this;
        }

        /**
         * The facts, read under {@code engine}'s current policy: the engine looks up the call's rule, {@code headers}
         * is asked for that rule's idempotency-key headers and for the policy's marker header, and the facts name the
         * policy they were read under.
         */
        public CallFacts build(RetryEngine engine, HeaderLookup headers) {
            return engine.read(this, headers);
        }

        /** The facts, {@code rule} being the call's under {@code policy}. */
        CallFacts build(ResolvedRule rule, Policy policy, HeaderLookup headers) {
            boolean idempotencyKey = false;
            List<String> keyHeaders = rule.settings.idempotencyKeyHeaders();
            for (int i = 0, n = keyHeaders.size(); i < n; i++) { // indexed: no iterator per call
                if (headers.has(keyHeaders.get(i))) {
                    idempotencyKey = true;
                    break;
                }
            }
            String marker = policy.markerHeader();
            boolean markerPresent = marker != null && headers.hasMarker(marker);
            // Only where the rule defers to such a layer: under upperLayers: retry the call is any other.
            LayerRetries upperLayer = rule.mode != Mode.OFF && rule.settings.upperLayers() == UpperLayers.DEFER
                    ? UpperLayer.of(headers) : null;
            return new CallFacts(client, method, scheme, host, port, path, idempotencyKey, bodyReplayable,
                    markerPresent, 0, upperLayer, policy);
        }
    }

    /**
     * These facts read under {@code policy} (which headers count as an idempotency key, which one is the marker), so
     * that the engine answers every question about the call under that same policy, even when a newer one was loaded
     * in between: no call sees half of two policies.
     */
    CallFacts withPolicy(Policy policy) {
        return new CallFacts(client, method, scheme, host, port, path, idempotencyKeyPresent, bodyReplayable,
                markerPresent, enclosingAttempt, upperLayer, policy);
    }

    /** The policy these facts were read under, or null when nothing said which (the engine's current one). */
    public Policy policy() {
        return readUnder;
    }

    /**
     * These facts for the same request after the client followed a redirect inside one attempt to
     * {@code scheme://host:port/path}: the rule and the destination (counters, budget) are those of where the request
     * went; method, idempotency key, body and marker stay the original request's, because a retry sends the original
     * request again. Read under the same policy (a run decides facts that name none under its call's). These very
     * facts when the address is the same.
     */
    public CallFacts redirectedTo(String scheme, String host, int port, String path) {
        String p = path == null || path.isEmpty() ? "/" : path;
        if (port == this.port && equalsIgnoreCase(host, this.host) && equalsIgnoreCase(scheme, this.scheme)
                && p.equals(this.path)) {
            return this;
        }
        return new CallFacts(client, method, scheme, host, port, p, idempotencyKeyPresent, bodyReplayable,
                markerPresent, enclosingAttempt, upperLayer, readUnder);
    }

    /** Whether {@code other} goes to the same destination (scheme, host, port): the same counters and budget. */
    boolean sameDestination(CallFacts other) {
        return port == other.port && equalsIgnoreCase(host, other.host) && equalsIgnoreCase(scheme, other.scheme);
    }

    private static boolean equalsIgnoreCase(String a, String b) {
        return a == null ? b == null : a.equalsIgnoreCase(b);
    }

    /**
     * These facts for a call made inside attempt {@code attempt} of another call the agent runs (the loops call
     * this when {@link AttemptScope#current()} says so): such a call is nested, executed exactly once
     * (docs/reference.md#one-retry-layer).
     */
    CallFacts insideAttempt(int attempt) {
        return new CallFacts(client, method, scheme, host, port, path, idempotencyKeyPresent, bodyReplayable,
                markerPresent, attempt, upperLayer, readUnder);
    }

    public String client() {
        return client;
    }

    public String method() {
        return method;
    }

    public String scheme() {
        return scheme;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String path() {
        return path;
    }

    public boolean idempotencyKeyPresent() {
        return idempotencyKeyPresent;
    }

    public boolean bodyReplayable() {
        return bodyReplayable;
    }

    public boolean markerPresent() {
        return markerPresent;
    }

    /** The attempt of the agent-run call this call is made inside, on the same thread; 0 when none. */
    public int enclosingAttempt() {
        return enclosingAttempt;
    }

    /**
     * The retry layer above the client, in the same JVM, that this call is made inside and that the call's rule
     * defers to (docs/reference.md#layers-above-the-client): an SDK's or a library's own retry loop, such as {@code
     * aws-sdk-v2}; null when none.
     */
    public String upperLayer() {
        return upperLayer == null ? null : upperLayer.layer();
    }

    /** {@link #upperLayer()} with what that layer retries, or null when none. */
    public LayerRetries upperLayerRetries() {
        return upperLayer;
    }

    /**
     * True when another retry layer owns this call (docs/reference.md#one-retry-layer): the request already carried the
     * marker, or it is made inside an attempt of another call the agent runs. It is executed exactly once.
     */
    public boolean nested() {
        return markerPresent || enclosingAttempt > 0;
    }

    @Override
    public String toString() {
        return "client=" + client + " method=" + method + " host=" + host + " path=" + path;
    }
}
