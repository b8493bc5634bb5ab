package dev.retryagent.it.clients;

/** {@link KitContract} for {@code httpclient4}. */
class HttpClient4KitIT extends KitContract {
    @Override
    String client() {
        return "httpclient4";
    }
}
