package dev.retryagent.it.redirects;

import java.util.List;

/** {@link Redirects} for OkHttp 5 (sync and async): the redirect is followed inside the agent's attempt. */
class OkHttpRedirectsIT extends Redirects {
    @Override
    List<Case> cases() {
        return List.of(
                // each retry is the original request, redirected again
                new Case("okhttp", "okhttp", "GET", "okhttp", 3, 3, 200, 2, 0),
                new Case("okhttp-async", "okhttp-async", "GET", "okhttp", 3, 3, 200, 2, 0),
                // a POST without key that the 302 turned into a GET to B: a retry would send the POST again, so none
                new Case("okhttp-post", "okhttp", "POST", "okhttp", 1, 1, 503, 0, 1),
                Case.observed("okhttp-observe", "okhttp", "okhttp", 1, 1));
    }
}
