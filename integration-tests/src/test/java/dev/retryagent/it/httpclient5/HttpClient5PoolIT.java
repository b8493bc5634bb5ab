package dev.retryagent.it.httpclient5;

import dev.retryagent.it.harness.ClientLibs;
import dev.retryagent.it.harness.PoolOfFive;
import dev.retryagent.it.harness.Runs;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link PoolOfFive} for HttpClient 5.2 and 5.6. */
@Timeout(180)
class HttpClient5PoolIT {
    @ParameterizedTest
    @EnumSource(names = {"HTTPCLIENT5_OLDEST", "HTTPCLIENT5_NEWEST"})
    void aThousandRetriedCallsThroughAPoolOfFive(ClientLibs libs) {
        Runs.assertVersion(PoolOfFive.check(HttpClient5AgentIT.app("pool", libs)), libs);
    }
}
