package dev.retryagent.it.clients;

/** {@link KitContract} for {@code okhttp}. */
class OkHttpKitIT extends KitContract {
    @Override
    String client() {
        return "okhttp";
    }
}
