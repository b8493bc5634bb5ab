package dev.retryagent.it.redirects;

import java.util.List;

/**
 * {@link Redirects} for the JDK's HttpURLConnection: the redirect is followed inside the agent's attempt, and the
 * connection stays at B, where the retries go.
 */
class HttpUrlConnectionRedirectsIT extends Redirects {
    @Override
    List<Case> cases() {
        return List.of(
                new Case("jdk", "jdk", "GET", "httpurlconnection", 1, 3, 200, 2, 0),
                // the JDK turned the POST into a GET to B; the call is still the application's POST: not retried
                new Case("jdk-post", "jdk", "POST", "httpurlconnection", 1, 1, 503, 0, 1),
                Case.observed("jdk-observe", "jdk", "httpurlconnection", 1, 1));
    }
}
