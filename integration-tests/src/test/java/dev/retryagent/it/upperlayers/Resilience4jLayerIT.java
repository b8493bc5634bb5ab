package dev.retryagent.it.upperlayers;

import dev.retryagent.it.upperlayers.LayerMatrix.App;
import dev.retryagent.it.upperlayers.LayerMatrix.Way;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Resilience4j Retry (4 attempts, 10 ms apart) over HttpURLConnection, 2.4.0 and 1.7.1 (the Java 8 line):
 * {@code retry.executeSupplier}, {@code Retry.decorateSupplier(retry, s).get()} and
 * {@code Retry.decorateCheckedSupplier(...)}, each scenario of {@link LayerMatrix}.
 */
@Timeout(240)
class Resilience4jLayerIT {
    private static final int RETRIES = 3;
    private static final List<Way> WAYS = List.of(new Way("execute", true, RETRIES + 1),
            new Way("decorate", true, RETRIES + 1), new Way("checked", true, RETRIES + 1));

    @ParameterizedTest(name = "resilience4j {0}")
    @ValueSource(strings = {"newest", "resilience4j-1.7"})
    void theLibrarysAttemptsOnly(String libSet) {
        String library = libSet.equals("newest") ? "resilience4j-2.4.0(HttpURLConnection)"
                : "resilience4j-1.7.1(HttpURLConnection)";
        LayerMatrix.measureAndCheck(new App(library, "resilience-apps", "dev.retryagent.it.layers.Resilience4jApp",
                List.of("libs/" + libSet), "resilience4j", WAYS, RETRIES), "r4j-" + libSet);
    }
}
