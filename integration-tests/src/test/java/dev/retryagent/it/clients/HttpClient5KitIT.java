package dev.retryagent.it.clients;

/** {@link KitContract} for {@code httpclient5}. */
class HttpClient5KitIT extends KitContract {
    @Override
    String client() {
        return "httpclient5";
    }

    @Override
    boolean asyncTakesOneShot() {
        return false;
    }
}
