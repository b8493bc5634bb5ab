package dev.retryagent.agent.bootloader.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RequestPathsTest {
    @Test
    void noPathAQueryAloneAndTheAsteriskForm() {
        assertEquals("/", RequestPaths.withoutQuery(null));
        assertEquals("/", RequestPaths.withoutQuery("?q=1"));
        assertEquals("*", RequestPaths.withoutQuery("*"));
    }
}
