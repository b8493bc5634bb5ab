package dev.retryagent.it.redirects;

import java.nio.file.Path;

/** {@link JdkHttpClientRedirectsIT} on Java 25. */
class JdkHttpClientRedirectsJava25IT extends JdkHttpClientRedirectsIT {
    @Override
    Path java() {
        return jdk(25);
    }
}
