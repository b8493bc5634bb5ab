package dev.retryagent.agent.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.retryagent.engine.CallFacts;

/**
 * One GET, built in each client's own types, that every adapter must read alike: a host in capitals, a query and a
 * fragment to leave out of the path, and an idempotency key whose header name is in lower case.
 */
public final class KeyedGetFacts {
    /** Sent with an {@code idempotency-key} header. */
    public static final String URL = "http://API.internal/v1/items?id=7#top";

    private KeyedGetFacts() {
    }

    public static void assertFacts(String client, CallFacts facts) {
        assertEquals(client, facts.client());
        assertEquals("GET", facts.method());
        assertEquals("http", facts.scheme());
        assertEquals(80, facts.port());
        assertEquals("/v1/items", facts.path());
        assertTrue(facts.idempotencyKeyPresent(), "header names compare case-insensitively");
        assertFalse(facts.markerPresent());
    }
}
