package dev.retryagent.it.onelayer;

import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.ForkedApp;
import dev.retryagent.it.harness.Jdks;

/**
 * One client's batch application (the contract's, which all take the same {@code --call} specs) as the one-layer
 * tests fork it: its client ({@code BatchApp}'s name for it), its client libraries and its JDK.
 */
record BatchTarget(String client, ClientLibs libs, Jdks.Jdk jdk) {
    static BatchTarget okhttp(ClientLibs libs, Jdks.Jdk jdk) {
        return new BatchTarget("okhttp", libs, jdk);
    }

    static BatchTarget httpClient5(ClientLibs libs, Jdks.Jdk jdk) {
        return new BatchTarget("httpclient5", libs, jdk);
    }

    static BatchTarget httpClient4(ClientLibs libs, Jdks.Jdk jdk) {
        return new BatchTarget("httpclient4", libs, jdk);
    }

    static BatchTarget httpUrlConnection(Jdks.Jdk jdk) {
        return new BatchTarget("httpurlconnection", ClientLibs.NONE, jdk);
    }

    static BatchTarget jdkHttpClient(Jdks.Jdk jdk) {
        return new BatchTarget("jdk-httpclient", ClientLibs.NONE, jdk);
    }

    /** A run named {@code name}; under the agent with {@code policy} and debug logging, or without it (null). */
    ForkedApp app(String name, String policy) {
        ForkedApp app = ForkedApp.batch(client);
        app.name(name).clientLibs(libs).java(jdk.java());
        if (policy != null) {
            app.policy(policy).agentArg("log", "debug");
        }
        return app;
    }
}
