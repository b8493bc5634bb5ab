package dev.retryagent.it.redirects;

import java.util.List;

/**
 * {@link Redirects} for HttpClient 5.6 (classic and async): the redirect is followed outside the agent's handler, so
 * A's 302 and B's answers are two calls, each under its own host's rule.
 */
class HttpClient5RedirectsIT extends Redirects {
    @Override
    List<Case> cases() {
        return List.of(
                new Case("hc5", "hc5", "GET", "apache-httpclient5", 1, 3, 200, 2, 0),
                new Case("hc5-async", "hc5-async", "GET", "apache-httpclient5", 1, 3, 200, 2, 0),
                // the GET to B is a call of its own, idempotent: retried at B; the POST to A is sent once
                new Case("hc5-post", "hc5", "POST", "apache-httpclient5", 1, 3, 200, 2, 0),
                // under observe HttpClient 5's own retry of the 503 runs as without the agent: two calls at B
                Case.observed("hc5-observe", "hc5", "apache-httpclient5", 2, 2),
                Case.observed("hc5-async-observe", "hc5-async", "apache-httpclient5", 2, 2));
    }
}
