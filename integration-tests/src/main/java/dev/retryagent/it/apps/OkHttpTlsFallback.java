package dev.retryagent.it.apps;

import dev.retryagent.it.clients.HttpKit;
import dev.retryagent.it.clients.OkHttpKit;
import java.util.Arrays;
import okhttp3.ConnectionSpec;
import okhttp3.OkHttpClient;
import okhttp3.TlsVersion;

/** An OkHttp client that reaches a TLS 1.2 server only by its connection-spec fallback (loaded only for OkHttp). */
final class OkHttpTlsFallback {
    private OkHttpTlsFallback() {
    }

    static HttpKit kit() {
        ConnectionSpec tls13Only = new ConnectionSpec.Builder(ConnectionSpec.MODERN_TLS)
                .tlsVersions(TlsVersion.TLS_1_3).build();
        return new OkHttpKit(new OkHttpClient.Builder()
                .connectionSpecs(Arrays.asList(tls13Only, ConnectionSpec.MODERN_TLS)).build());
    }
}
