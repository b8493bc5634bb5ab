package dev.retryagent.it.onelayer;

import dev.retryagent.it.apps.HttpClient4Scenario;
import dev.retryagent.it.apps.HttpClient5Scenario;
import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;
import dev.retryagent.it.httpurlconnection.HttpUrlConnectionBatchApp;
import dev.retryagent.it.jdkhttp.JdkHttpClientBatchApp;
import dev.retryagent.it.okhttp.OkHttpBatchApp;

/**
 * One client's batch application (the contract's, which all take the same {@code --call} specs) as the one-layer
 * tests fork it: its main class, its client libraries and its JDK.
 */
record BatchTarget(Class<?> main, ClientLibs libs, Jdks.Jdk jdk) {
    static BatchTarget okhttp(ClientLibs libs, Jdks.Jdk jdk) {
        return new BatchTarget(OkHttpBatchApp.class, libs, jdk);
    }

    static BatchTarget httpClient5(ClientLibs libs, Jdks.Jdk jdk) {
        return new BatchTarget(HttpClient5Scenario.class, libs, jdk);
    }

    static BatchTarget httpClient4(ClientLibs libs, Jdks.Jdk jdk) {
        return new BatchTarget(HttpClient4Scenario.class, libs, jdk);
    }

    static BatchTarget httpUrlConnection(Jdks.Jdk jdk) {
        return new BatchTarget(HttpUrlConnectionBatchApp.class, ClientLibs.NONE, jdk);
    }

    static BatchTarget jdkHttpClient(Jdks.Jdk jdk) {
        return new BatchTarget(JdkHttpClientBatchApp.class, ClientLibs.NONE, jdk);
    }

    /** A run named {@code name}; under the agent with {@code policy} and debug logging, or without it (null). */
    ForkedApp app(String name, String policy) {
        ForkedApp app = ForkedApp.of(main).name(name).clientLibs(libs).java(jdk.java());
        if (policy != null) {
            app.policy(policy).agentArg("log", "debug");
        }
        return app;
    }
}
