package dev.retryagent.it.clients;

import org.junit.jupiter.api.Test;

/** {@link KitContract} for {@code httpurlconnection}, which has no async API (those checks are skipped). */
class HttpUrlConnectionKitIT extends KitContract {
    @Override
    String client() {
        return "httpurlconnection";
    }

    @Test
    void isBlockingOnly() {
        assertBlockingOnly(Kits.create("huc"));
    }
}
