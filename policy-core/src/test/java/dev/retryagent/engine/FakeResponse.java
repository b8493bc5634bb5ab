package dev.retryagent.engine;

/** A client's response as the fake exchanges hand it out: one instance per attempt, compared by identity. */
final class FakeResponse {
    final int attempt;
    final int status;
    final String retryAfter;

    FakeResponse(int attempt, int status, String retryAfter) {
        this.attempt = attempt;
        this.status = status;
        this.retryAfter = retryAfter;
    }

    @Override
    public String toString() {
        return "response#" + attempt + "(" + status + (retryAfter == null ? "" : ", Retry-After: " + retryAfter) + ")";
    }
}
