package dev.retryagent.it.redirects;

import java.util.List;

/**
 * {@link Redirects} for HttpClient 4.5 and HttpAsyncClient 4.1. The classic client follows the redirect in its
 * {@code RedirectExec}, outside the agent's place at {@code ProtocolExec}: A's 302 and B's answers are two calls, each
 * under its own host's rule (as HttpClient 5). The async client follows it inside one exchange, so inside the agent's
 * attempt (as OkHttp): B's answer is decided under B's rule, and each retry sends the request to A again.
 * (HttpClient 4 does not follow a 302 for a POST by default: no POST case.)
 */
class HttpClient4RedirectsIT extends Redirects {
    @Override
    List<Case> cases() {
        return List.of(
                new Case("hc4", "hc4", "GET", "apache-httpclient4", 1, 3, 200, 2, 0),
                new Case("hc4-async", "hc4-async", "GET", "apache-httpclient4", 3, 3, 200, 2, 0),
                // under observe nothing is retried; HttpClient 4 does not resend a 503 alone
                Case.observed("hc4-observe", "hc4", "apache-httpclient4", 1, 1),
                Case.observed("hc4-async-observe", "hc4-async", "apache-httpclient4", 1, 1));
    }
}
