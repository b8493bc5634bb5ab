package dev.retryagent.engine;

import dev.retryagent.policy.FailureKind;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * What each attempt of a fake exchange produces, in order: a status (with an optional Retry-After) or
 * a failure. Shared by the sync and async fake exchanges.
 */
final class Script {
    private final List<Object> steps = new ArrayList<>();
    private final Map<IOException, FailureKind> kinds = new IdentityHashMap<>();

    static Script of() {
        return new Script();
    }

    Script status(int status) {
        return status(status, null);
    }

    Script status(int status, String retryAfter) {
        steps.add(new int[] {status});
        steps.add(retryAfter);
        return this;
    }

    Script fail(FailureKind kind) {
        IOException failure;
        switch (kind) {
            case CONNECT:
                failure = new ConnectException("Connection refused");
                break;
            case RESET:
                failure = new SocketException("Connection reset");
                break;
            case TIMEOUT:
                failure = new SocketTimeoutException("Read timed out");
                break;
            default:
                failure = new javax.net.ssl.SSLHandshakeException("PKIX path building failed");
        }
        return fail(failure, kind);
    }

    Script fail(IOException failure, FailureKind kind) {
        kinds.put(failure, kind);
        steps.add(failure);
        steps.add(null);
        return this;
    }

    int size() {
        return steps.size() / 2;
    }

    /** The failure of attempt {@code attempt}, or null when it gives a response. */
    IOException failureAt(int attempt) {
        Object step = step(attempt);
        return step instanceof IOException ? (IOException) step : null;
    }

    FakeResponse responseAt(int attempt) {
        Object step = step(attempt);
        if (step instanceof IOException) {
            throw new IllegalStateException("attempt " + attempt + " fails");
        }
        return new FakeResponse(attempt, ((int[]) step)[0], (String) steps.get(2 * (attempt - 1) + 1));
    }

    FailureKind kindOf(IOException failure) {
        FailureKind kind = kinds.get(failure);
        return kind == null ? FailureKind.OTHER : kind;
    }

    private Object step(int attempt) {
        if (attempt < 1 || attempt > size()) {
            throw new AssertionError("unscripted attempt " + attempt + " (script has " + size() + ")");
        }
        return steps.get(2 * (attempt - 1));
    }
}
