package dev.retryagent.it.clients;

/** {@link KitContract} for {@code jdk-httpclient}. */
class JdkHttpClientKitIT extends KitContract {
    @Override
    String client() {
        return "jdk-httpclient";
    }
}
