package dev.retryagent.agent.clients.jdkhttp;

/** A response head as the loop sees it: the status and Retry-After; the body is still to come. */
final class ResponseHead {
    final JdkHttpAsyncExchange.Attempt attempt;
    final Object info;
    final int status;
    final String retryAfter;

    ResponseHead(JdkHttpAsyncExchange.Attempt attempt, Object info, int status, String retryAfter) {
        this.attempt = attempt;
        this.info = info;
        this.status = status;
        this.retryAfter = retryAfter;
    }
}
