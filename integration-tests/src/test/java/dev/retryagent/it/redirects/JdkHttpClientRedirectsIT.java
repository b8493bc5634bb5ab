package dev.retryagent.it.redirects;

import dev.retryagent.it.harness.Jdks;
import java.nio.file.Path;
import java.util.List;

/**
 * {@link Redirects} for the JDK's java.net.http client with {@code followRedirects(NORMAL)}, sync and async, on the
 * test JDK ({@link JdkHttpClientRedirectsJava25IT} runs the same on Java 25). The client follows the redirect inside one {@code send}, so inside
 * the agent's attempt (as OkHttp): B's answer is decided under B's rule, and each retry sends the request to A again.
 */
class JdkHttpClientRedirectsIT extends Redirects {
    @Override
    List<Case> cases() {
        return List.of(
                new Case("jdkhttp", "jdk-httpclient", "GET", "jdk-httpclient", 3, 3, 200, 2, 0),
                new Case("jdkhttp-async", "jdk-httpclient-async", "GET", "jdk-httpclient", 3, 3, 200, 2, 0),
                // the client turned the POST into a GET to B; the call is still the application's POST: not retried
                new Case("jdkhttp-post", "jdk-httpclient", "POST", "jdk-httpclient", 1, 1, 503, 0, 1),
                Case.observed("jdkhttp-observe", "jdk-httpclient", "jdk-httpclient", 1, 1),
                Case.observed("jdkhttp-async-observe", "jdk-httpclient-async", "jdk-httpclient", 1, 1));
    }

    @Override
    Path java() {
        return Jdks.testJdk().java();
    }
}
