package dev.retryagent.it.redirects;

import dev.retryagent.it.harness.Jdks;
import java.nio.file.Path;

/** {@link JdkHttpClientRedirectsIT} on Java 25. */
class JdkHttpClientRedirectsJava25IT extends JdkHttpClientRedirectsIT {
    @Override
    Path java() {
        return Jdks.version(25).java();
    }
}
